package app

// Services are the doors into the domain, one per concept: the web layer, the CLI and the
// queue handlers reach the data through them only.
type Services struct {
	Sources    *Sources
	Reading    *Reading
	Settings   *UserSettings
	Enriching  *Enriching
	Briefings  *Briefings
	Deliveries *Deliveries
	Accounts   *Accounts
	Care       *Care
	Queues     QueueAdmin
	Feedback   *Feedback
	Saving     *Saving
}
