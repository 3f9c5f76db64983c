package views

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

// mailForm reads a mail folder's form; the password is returned apart and never put back in
// the form.
func mailForm(r *http.Request) (MailForm, string) {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	return MailForm{Name: v("name"), Host: v("host"), Port: v("port"), Security: v("security"), Username: v("username"),
		Folder: v("folder"), Sender: v("sender"), FirstImport: v("first"), Interval: v("interval"),
		MarkRead: r.PostFormValue("markread") == "on"}, r.PostFormValue("password")
}

// mailbox turns the form into a mailbox, or says which number is not one.
func (f MailForm) mailbox() (app.Mailbox, error) {
	m := app.Mailbox{Host: f.Host, Security: app.MailSecurity(f.Security), Username: f.Username, Folder: f.Folder,
		Sender: f.Sender, MarkRead: f.MarkRead}
	var err error
	if f.Port != "" {
		if m.Port, err = strconv.Atoi(f.Port); err != nil {
			return m, app.Errorf(app.EINVALID, "The port must be a number between 1 and 65535; got %q.", f.Port)
		}
	}
	if f.FirstImport != "" {
		if m.FirstImport, err = strconv.Atoi(f.FirstImport); err != nil {
			return m, app.Errorf(app.EINVALID, "The first import takes a number of messages, 1 to %d; got %q.", app.MaxFirstImport, f.FirstImport)
		}
	}
	return m, nil
}

// mailFormOf is the form of a stored mailbox.
func mailFormOf(m *app.Mailbox) MailForm {
	return MailForm{Host: m.Host, Port: strconv.Itoa(m.Port), Security: string(m.Security), Username: m.Username, Folder: m.Folder,
		Sender: m.Sender, FirstImport: strconv.Itoa(m.FirstImport), MarkRead: m.MarkRead}
}

// addMail handles the mail folder form: the folder is checked (connect, log in, open) before it
// is saved; what failed is said in plain words, with the form as typed but its password empty.
func (s *Server) addMail(w http.ResponseWriter, r *http.Request) {
	form, password := mailForm(r)
	failed := func(status int, err error) {
		form.Error, form.Open = app.ErrorMessage(err), true
		s.renderSourcesMail(w, r, status, form)
	}
	m, err := form.mailbox()
	if err != nil {
		failed(http.StatusUnprocessableEntity, err)
		return
	}
	in := app.AddMail{UserID: userID(r), Name: form.Name, Mailbox: m, Password: password}
	if form.Interval != "" {
		n, err := strconv.Atoi(form.Interval)
		if err != nil {
			failed(http.StatusUnprocessableEntity, app.Errorf(app.EINVALID, "Refresh interval must be a whole number of minutes between %d and %d; got %q.", app.MinRefreshInterval, app.MaxRefreshInterval, form.Interval))
			return
		}
		in.RefreshIntervalMinutes = &n
	}
	src, err := s.opts.Sources.AddMail(r.Context(), in)
	switch {
	case err != nil && app.ErrorCode(err) == app.EINTERNAL:
		s.serverError(w, r, err)
		return
	case err != nil:
		status, _, _ := failure(err)
		if status != http.StatusTooManyRequests {
			status = http.StatusUnprocessableEntity
		}
		setRetryAfter(w, err)
		failed(status, err)
		return
	}
	s.redirect(w, r, "/sources/"+strconv.FormatInt(src.ID, 10), flashSuccess("Mail folder added — reading "+src.Name+"…"))
}

// renderSourcesMail is the Sources page with the mail folder form as typed.
func (s *Server) renderSourcesMail(w http.ResponseWriter, r *http.Request, status int, form MailForm) {
	l, err := s.sourceList(r)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v := SourcesPageView{Mail: form, List: l, CanImport: s.opts.ImportOPML != nil, CanExport: s.opts.ExportOPML != nil}
	s.renderStatus(w, r, status, sourcesPage(s.page(w, r, "sources", "Sources"), v))
}

// editMail saves a mail source's mailbox, checked first; an empty password keeps the stored one.
func (s *Server) editMail(w http.ResponseWriter, r *http.Request) {
	src, ok := s.loadSource(w, r)
	if !ok {
		return
	}
	form, password := mailForm(r)
	m, err := form.mailbox()
	if err == nil {
		err = s.opts.Sources.UpdateMail(r.Context(), userID(r), src.ID, m, password)
	}
	if err != nil {
		if app.ErrorCode(err) == app.EINTERNAL {
			s.serverError(w, r, err)
			return
		}
		form.Error = app.ErrorMessage(err)
		s.renderSourceMail(w, r, http.StatusUnprocessableEntity, src, &form)
		return
	}
	s.redirect(w, r, "/sources/"+strconv.FormatInt(src.ID, 10), flashSuccess("Mail folder checked and saved."))
}

// followSender adds a source for one sender of a mail folder.
func (s *Server) followSender(w http.ResponseWriter, r *http.Request) {
	src, ok := s.loadSource(w, r)
	if !ok {
		return
	}
	n, err := s.opts.Sources.FollowSender(r.Context(), userID(r), src.ID, r.PostFormValue("sender"), r.PostFormValue("name"))
	if err != nil {
		s.actionFailed(w, r, "/sources/"+strconv.FormatInt(src.ID, 10), err)
		return
	}
	s.redirect(w, r, "/sources/"+strconv.FormatInt(n.ID, 10), flashSuccess(fmt.Sprintf("Following %s separately — reading…", n.Name)))
}

// mailPart is a mail source's mailbox form and senders for its page (form nil: the stored one).
func (s *Server) mailPart(r *http.Request, src *app.Source, form *MailForm) (*MailForm, []SenderView) {
	if src.Type != app.SourceIMAP {
		return nil, nil
	}
	if form == nil {
		m, err := s.opts.Sources.Mailbox(r.Context(), userID(r), src.ID)
		if err != nil {
			return nil, nil
		}
		f := mailFormOf(m)
		form = &f
	}
	var senders []SenderView
	if form.Sender == "" {
		list, err := s.opts.Sources.MailSenders(r.Context(), userID(r), src.ID)
		if err == nil {
			for _, m := range list {
				v := SenderView{Address: m.Address, Name: m.Name, Items: m.Items}
				if m.SourceID != 0 {
					v.SourceHref = "/sources/" + strconv.FormatInt(m.SourceID, 10)
				}
				senders = append(senders, v)
			}
		}
	}
	return form, senders
}

func (s *Server) renderSourceMail(w http.ResponseWriter, r *http.Request, status int, src *app.Source, form *MailForm) {
	s.renderSourceWith(w, r, status, src, src.Name, strconv.Itoa(src.RefreshIntervalMinutes), "", form)
}

// Address says where a mail source reads, for a person: "reader@example.org on
// imap.fastmail.com, folder Newsletters, from news@example.com".
func (f MailForm) Address() string {
	s := f.Username + " on " + f.Host + ", folder " + f.Folder
	if f.Sender != "" {
		s += ", from " + f.Sender
	}
	return s
}

// createMailRequest is the body of POST /api/sources/mail. The password is read, never written
// back: the answer is the source (SourceJSON), whose URL holds none.
type createMailRequest struct {
	Name                   string `json:"name"`
	Host                   string `json:"host"`
	Port                   int    `json:"port"`
	Security               string `json:"security"` // tls (default), starttls, plain (loopback only)
	Username               string `json:"username"`
	Password               string `json:"password"`
	Folder                 string `json:"folder"`
	Sender                 string `json:"sender"`
	FirstImport            int    `json:"firstImport"`
	MarkRead               bool   `json:"markRead"`
	RefreshIntervalMinutes *int   `json:"refreshIntervalMinutes"`
	InFolder               string `json:"inFolder"` // the Morning Deck folder
}

// apiCreateMail adds a mail folder as a source, checked first (a 422 says what failed).
func (s *Server) apiCreateMail(w http.ResponseWriter, r *http.Request) {
	var req createMailRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	m := app.Mailbox{Host: req.Host, Port: req.Port, Security: app.MailSecurity(strings.ToLower(req.Security)), Username: req.Username,
		Folder: req.Folder, Sender: req.Sender, FirstImport: req.FirstImport, MarkRead: req.MarkRead}
	src, err := s.opts.Sources.AddMail(r.Context(), app.AddMail{UserID: userID(r), Name: req.Name, Mailbox: m, Password: req.Password,
		RefreshIntervalMinutes: req.RefreshIntervalMinutes, Folder: req.InFolder})
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	s.writeCreatedSource(w, r, src)
}
