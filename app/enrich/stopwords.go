package enrich

import "strings"

// Stop words of English, French, German, Spanish, Dutch, Italian and Portuguese, and words that
// web pages and feeds carry without meaning. Matching is on accent-folded lower case. They apply
// to article text only, never to the user's interests and topic keywords.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, list := range []string{stopEN, stopFR, stopDE, stopES, stopNL, stopIT, stopPT, stopWeb} {
		for _, w := range strings.Fields(list) {
			m[fold(w)] = true
		}
	}
	return m
}()

const stopEN = `a about above after again against all almost also although always am among an and another any anybody anyone
anything anyway anywhere are aren't around as at away back be became because become becomes been before being below
between both but by can can't cannot could couldn't did didn't do does doesn't doing don't done down during each either
else enough even ever every everyone everything few first for from further get gets getting give given go goes going gone
got had hadn't has hasn't have haven't having he her here hers herself him himself his how however i if in into is isn't
it it's its itself just keep know last least less let like likely made make makes making many may maybe me might mine
more most mostly much must my myself near need needs never new next no nobody none nor not nothing now of off often
old on once one only onto or other others otherwise our ours ourselves out over own per perhaps put quite rather really
said same say says see seem seemed seems seen several shall she should shouldn't since so some somebody someone
something sometimes still such take than that that's the their theirs them themselves then there there's these they
they're thing things think this those though through thus till to together too took toward towards two under until up
upon us use used uses using very via was wasn't way ways we well went were weren't what what's whatever when where
whether which while who whom whose why will with within without won't would wouldn't yes yet you you're your yours
yourself yourselves want wants lot lots able across actually already ago another anyhow came come comes etc especially
instead inside let's look looks looking new news often okay ones put sure tell thanks thank today tomorrow yesterday
year years day days week weeks month months time times good great best better big little long high small right left
three four five six seven eight nine ten hundred thousand million billion`

const stopFR = `au aux avec ce ces cet cette dans de des du elle elles en et eux il ils je la le les leur leurs lui ma mais me même
mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre
vous c d j l à m n s t y été étée étées étés étant suis es est sommes êtes sont serai seras sera serons serez seront
étais était étions étiez étaient fus fut furent sois soit soyons soyez soient avoir ai as avons avez ont aurai aura
aurons aurez auront avais avait avions aviez avaient eu eut eurent aie ait ayons ayez aient ceci cela celà celui celle
ceux celles comme comment donc dont encore entre ici ils jamais là leur lors mais moins peu plus plusieurs pourquoi
puis quand quel quelle quelles quels sans selon si sous tous tout toute toutes très trop vers voici voilà aussi alors
après avant bien car chez contre depuis déjà doit fait faire faut peut peuvent sera ainsi autre autres aucun aucune
chaque dès ans hier aujourd'hui elle-même lequel laquelle lesquels non oui parce pendant sinon souvent tant tel telle tellement toujours`

const stopDE = `aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes anderm andern
anderr anders auch auf aus bei bin bis bist da damit dann das dass dasselbe dazu daß dein deine deinem deinen deiner
deines dem demselben den denn denselben der derer derselbe derselben des desselben dessen dich die dies diese dieselbe
dieselben diesem diesen dieser dieses dir doch dort du durch ein eine einem einen einer eines einig einige einigem
einigen einiger einiges einmal er es etwas euch euer eure eurem euren eurer eures für gegen gewesen hab habe haben hat
hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins ist jede jedem jeden
jeder jedes jene jenem jenen jener jenes jetzt kann kein keine keinem keinen keiner keines können könnte machen man
manche manchem manchen mancher manches mein meine meinem meinen meiner meines mich mir mit muss musste nach nicht
nichts noch nun nur ob oder ohne sehr sein seine seinem seinen seiner seines selbst sich sie sind so solche solchem
solchen solcher solches soll sollte sondern sonst über um und uns unsere unserem unseren unser unseres unter viel vom
von vor während war waren warst was weg weil weiter welche welchem welchen welcher welches wenn werde werden wie wieder
will wir wird wirst wo wollen wollte würde würden zu zum zur zwar zwischen neue neuen neuer neues schon immer mehr beim
seit bereits heute gestern jahre jahren gibt geht wurde wurden worden ab`

const stopES = `a al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante e el ella ellas
ellos en entre era erais eran eras eres es esa esas ese eso esos esta estaba estaban estado estamos estar estas este
esto estos estoy fue fueron fui ha había habían han has hasta hay la las le les lo los más me mi mis mucho muchos muy
nada ni no nos nosotros o os otra otras otro otros para pero poco por porque que quien quienes se sea ser si sido sin
sobre sois somos son soy su sus también tanto te tenemos tener tengo ti tiene tienen todo todos tu tus un una uno unos
usted ustedes vosotros y ya yo cada así aquí allí año años día días según puede pueden hacer hace sólo solo además
mismo misma dos tres nuevo nueva nuevos nuevas entonces ese mientras vez veces tras luego cómo qué cuál ayer hoy`

const stopWeb = `read more click here continue reading comments comment posted post posts share shares via http https www com org
net html htm php aspx nbsp amp quot apos gt lt rss feed feeds subscribe newsletter email mail link links page pages
article articles blog blogs site website home menu login sign cookie cookies privacy policy terms image images photo
photos video videos source sources update updated author image jpg jpeg png gif pdf also original full story`

const stopNL = `aan al alle alles als altijd andere ben bij daar dan dat de der deze die dit doch doen door dus een eens en er
ge geen geweest haar had heb hebben heeft hem het hier hij hoe hun iemand iets ik in is ja je kan kon kunnen maar me meer
men met mij mijn moet na naar niet niets nog nu of om omdat onder ons ook op over reeds te tegen toch toen tot u uit uw
van veel voor want waren was wat werd wezen wie wil worden wordt zal ze zelf zich zij zijn zo zonder zou ook nieuwe jaar`

const stopIT = `ad al allo ai agli all agl alla alle con col coi da dal dallo dai dagli dall dagl dalla dalle di del dello dei
degli dell degl della delle in nel nello nei negli nell negl nella nelle su sul sullo sui sugli sull sugl sulla sulle per
tra contro io tu lui lei noi voi loro mio mia miei mie tuo tua tuoi tue suo sua suoi sue nostro nostra nostri nostre
vostro vostra vostri vostre mi ti ci vi lo la li le gli ne il un uno una ma ed se perché anche come dov dove che chi cui
non più quale quanto quanti quanta quante quello quelli quella quelle questo questi questa queste si tutto tutti è sono
era erano stato stata essere ha hanno aveva avere fa fare molto ancora già oggi anni anno nuovo nuova sia`

const stopPT = `de a o que e do da em um para com não uma os no se na por mais as dos como mas ao ele das à seu sua ou quando
muito nos já eu também só pelo pela até isso ela entre depois sem mesmo aos seus quem nas me esse eles você essa num
nem suas meu às minha numa pelos elas qual nós lhe deles essas esses pelas este dele tu te vocês vos lhes meus minhas
teu tua teus tuas nosso nossa nossos nossas dela delas esta estes estas aquele aquela aqueles aquelas isto aquilo está
estão foi foram ser tem têm ter há pode podem novo nova ano anos hoje ainda sobre`
