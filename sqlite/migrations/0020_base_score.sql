-- The reading model applies to items an LLM enriched too (issue 12): the LLM's own score and
-- reason are kept apart from the stored score, so that a re-score after feedback starts from
-- them instead of compounding the model's earlier adjustment. Null: the embedded enricher scored
-- the item (it re-scores from the text).
alter table items add column base_score integer;
alter table items add column base_reasoning text not null default '';
