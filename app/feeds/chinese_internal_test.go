package feeds

import (
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// Real Chinese text, the kind feeds carry (news, notices, site chrome), written as Taiwan
// and Hong Kong sites write it (traditional characters) and as mainland sites do (simplified).
var (
	traditionalText = []string{
		"臺灣位於東亞，是一個島嶼，首都為臺北市。",
		"中華民國憲法於一九四七年開始施行，規定國家的基本制度。",
		"今天上午，行政院召開記者會，說明新的經濟政策與預算規劃。",
		"香港天文台表示，颱風將於明日凌晨登陸，市民應做好防風準備。",
		"這部電影講述了一個家庭在戰爭中失散後重逢的故事，感動了許多觀眾。",
		"研究人員發現，每天運動三十分鐘可以明顯降低心臟病的風險。",
		"蘋果公司發表了新款手機，搭載更快的處理器與更長的電池續航力。",
		"臺北捷運公司宣布，週末將延長營運時間至凌晨兩點。",
		"教育部長表示，明年起將增加大學獎學金的名額。",
		"國立故宮博物院收藏了大量珍貴的文物，每年吸引數百萬名遊客參觀。",
		"我們的網站使用 Cookie 來改善您的瀏覽體驗，繼續瀏覽即表示您同意。",
		"立法院三讀通過修正草案，明年一月一日起實施。",
		"氣象局預報，週末各地天氣穩定，早晚溫差大。",
		"最新消息：本校圖書館寒假期間開放時間調整。",
		"他說：「我們會盡快處理這個問題。」",
		"高雄市政府舉辦燈會，吸引大批民眾前往觀賞。",
	}
	simplifiedText = []string{
		"北京是中华人民共和国的首都，也是全国的政治和文化中心。",
		"国家统计局今天发布数据，第三季度国内生产总值同比增长百分之五。",
		"上海地铁将于本周末延长运营时间，方便市民夜间出行。",
		"研究人员发现，每天运动三十分钟可以明显降低心脏病的风险。",
		"这部电影讲述了一个家庭在战争中失散后重逢的故事，感动了许多观众。",
		"苹果公司发布了新款手机，搭载更快的处理器和更长的电池续航。",
		"教育部表示，明年起将增加大学奖学金的名额。",
		"故宫博物院收藏了大量珍贵文物，每年吸引数百万名游客参观。",
		"朱镕基曾任国务院总理，主持了多项经济改革。",
		"我们的网站使用 Cookie 来改善您的浏览体验，继续浏览即表示您同意。",
		"气象台预报，周末各地天气稳定，早晚温差较大。",
		"最新消息：本校图书馆寒假期间开放时间调整。",
		"他说：“我们会尽快处理这个问题。”",
		"深圳市政府举办灯会，吸引大批市民前往观赏。",
		"全国人大常委会表决通过修正草案，明年一月一日起施行。",
		"广州的早茶文化历史悠久，深受市民喜爱。",
	}
)

// chineseSniffing decodes, undeclared, every text alone (as a feed with its title and one
// item) and all of them together, and counts the wrong decodings.
func chineseSniffing(t *testing.T, texts []string, enc encoding.Encoding) (docs, wrong int) {
	t.Helper()
	check := func(texts ...string) {
		doc := "<rss><channel><title>" + texts[0] + "</title>"
		for _, s := range texts {
			doc += "<item><title>" + s + "</title><link>https://e.example/1</link></item>"
		}
		doc += "</channel></rss>"
		b, err := enc.NewEncoder().String(doc)
		if err != nil {
			t.Fatal(err)
		}
		docs++
		if got := string(toUTF8([]byte(b))); got != doc {
			wrong++
			t.Logf("misread: %.60q", got)
		}
	}
	for _, s := range texts {
		check(s)
	}
	check(texts...)
	return docs, wrong
}

// TestBig5AndGBKSniffing: undeclared Big5 is not read as GBK, nor GBK as Big5, nor either as
// anything else. Before half-width katakana stopped counting as Japanese and curly quotes as
// foreign, 4 of the 17 Big5 documents were read as Shift_JIS and 1 of the 17 GBK ones as
// Windows-1252; Big5 and GBK were never taken for each other.
func TestBig5AndGBKSniffing(t *testing.T) {
	docs, wrong := chineseSniffing(t, traditionalText, traditionalchinese.Big5)
	t.Logf("Big5: %d of %d documents misread", wrong, docs)
	if wrong > 0 {
		t.Errorf("Big5: %d of %d documents misread", wrong, docs)
	}
	docs, wrong = chineseSniffing(t, simplifiedText, simplifiedchinese.GBK)
	t.Logf("GBK: %d of %d documents misread", wrong, docs)
	if wrong > 0 {
		t.Errorf("GBK: %d of %d documents misread", wrong, docs)
	}
	// Traditional text in GBK (mainland sites quoting Taiwan) is GBK still.
	docs, wrong = chineseSniffing(t, traditionalText[:4], simplifiedchinese.GBK)
	t.Logf("traditional text in GBK: %d of %d documents misread", wrong, docs)
	if wrong > 0 {
		t.Errorf("traditional text in GBK: %d of %d documents misread", wrong, docs)
	}
}
