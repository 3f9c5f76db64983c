// Package mailtest runs a real IMAP server in process for tests and benchmarks: go-imap v2's
// imapserver with its in-memory backend (imapmemserver), on a loopback listener, with one
// test user. It serves plain IMAP (with STARTTLS) and implicit TLS, with a certificate made
// for the test that RootCAs trusts.
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	"github.com/morningdeck/morningdeck/app"
)

// Server is an IMAP server with one user.
type Server struct {
	User, Password string
	// Port serves plain IMAP (STARTTLS offered), TLSPort implicit TLS, both on 127.0.0.1.
	Port, TLSPort int
	// RootCAs trusts the server's certificate (for "localhost" and 127.0.0.1).
	RootCAs *x509.CertPool

	user *imapmemserver.User
}

// Start starts a server with user and password and the folders given (INBOX is always there);
// it stops when the test ends.
func Start(t testing.TB, user, password string, folders ...string) *Server {
	t.Helper()
	cert, pool := certificate(t)
	mem := imapmemserver.New()
	u := imapmemserver.NewUser(user, password)
	for _, f := range append([]string{"INBOX"}, folders...) {
		if err := u.Create(f, nil); err != nil {
			t.Fatalf("mailtest: create %s: %v", f, err)
		}
	}
	mem.AddUser(u)
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}}
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}},
		TLSConfig:    tlsConfig,
		InsecureAuth: true, // loopback only
		Logger:       log.New(io.Discard, "", 0),
	})
	plain, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	secure, err := tls.Listen("tcp", "127.0.0.1:0", tlsConfig)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(plain) }()
	go func() { _ = srv.Serve(secure) }()
	t.Cleanup(func() { _ = srv.Close() })
	return &Server{User: user, Password: password, Port: plain.Addr().(*net.TCPAddr).Port, TLSPort: secure.Addr().(*net.TCPAddr).Port,
		RootCAs: pool, user: u}
}

// Mailbox is the mailbox of folder on the server, over plain IMAP to 127.0.0.1.
func (s *Server) Mailbox(folder string) app.Mailbox {
	return app.Mailbox{Host: "127.0.0.1", Port: s.Port, Security: app.MailPlain, Username: s.User, Folder: folder, FirstImport: app.DefaultFirstImport}
}

// Add appends a message to folder, received at date (its INTERNALDATE), unread.
func (s *Server) Add(t testing.TB, folder string, msg []byte, date time.Time) {
	t.Helper()
	if _, err := s.user.Append(folder, literal{bytes.NewReader(msg), int64(len(msg))}, &imap.AppendOptions{Time: date}); err != nil {
		t.Fatalf("mailtest: append to %s: %v", folder, err)
	}
}

// Seen reports how many messages of folder are marked \Seen.
func (s *Server) Seen(t testing.TB, folder string) (seen, total int) {
	t.Helper()
	st, err := s.user.Status(folder, &imap.StatusOptions{NumMessages: true, NumUnseen: true})
	if err != nil {
		t.Fatal(err)
	}
	return int(*st.NumMessages - *st.NumUnseen), int(*st.NumMessages)
}

// Expunge deletes the messages of folder with sequence numbers from to to, through the server
// (STORE \Deleted, EXPUNGE), as another mail client would.
func (s *Server) Expunge(t testing.TB, folder string, from, to uint32) {
	t.Helper()
	c, err := imapclient.DialInsecure(s.Addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(s.User, s.Password).Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Select(folder, nil).Wait(); err != nil {
		t.Fatal(err)
	}
	var set imap.SeqSet
	set.AddRange(from, to)
	if err := c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Expunge().Close(); err != nil {
		t.Fatal(err)
	}
}

type literal struct {
	io.Reader
	n int64
}

func (l literal) Size() int64 { return l.n }

// Newsletter is a small HTML newsletter from sender (n numbers it: subject, Message-ID).
func Newsletter(sender, name string, n int, date time.Time, body string) []byte {
	return []byte(fmt.Sprintf("From: %s <%s>\r\nTo: reader@example.org\r\nSubject: Issue %d: %s\r\nDate: %s\r\nMessage-ID: <issue-%d.%s>\r\n"+
		"List-Unsubscribe: <https://news.example/unsubscribe?id=%d>\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"+
		"<html><body><h1>Issue %d</h1><p>%s</p><img src=\"https://t.news.example/open/%d\" width=\"1\" height=\"1\"></body></html>\r\n",
		name, sender, n, firstWords(body), date.Format(time.RFC1123Z), n, sender, n, n, body, n))
}

// firstWords is the first six words of body's text, for a subject.
func firstWords(s string) string {
	s = strings.Join(strings.Fields(tags.ReplaceAllString(s, " ")), " ")
	n := 0
	for i, r := range s {
		if r == ' ' {
			if n++; n == 6 {
				return s[:i]
			}
		}
	}
	return s
}

var tags = regexp.MustCompile(`<[^>]*>`)

// Addr is host:port of the plain listener.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

func certificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: c}, pool
}
