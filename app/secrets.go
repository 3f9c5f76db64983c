package app

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// SecretBox seals the secrets the app must read back in the clear to use them (a mail
// account's password): AES-256-GCM with a key kept in a file beside the database, never in it.
// The database, and so every backup of it, holds only the sealed bytes: a backup read without
// the key file shows no password, and a backup restored elsewhere asks for the passwords again.
type SecretBox struct{ aead cipher.AEAD }

// NewSecretBox returns a box sealing with key (32 bytes).
func NewSecretBox(key []byte) (*SecretBox, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secret key: %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &SecretBox{aead: aead}, nil
}

// LoadSecretBox reads the key at path, making a new random one (mode 0600) when there is none.
func LoadSecretBox(path string) (*SecretBox, error) {
	key, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("secret key %s: %w", path, err)
		}
		if _, err := f.Write(key); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("secret key %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("secret key %s: %w", path, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("secret key %s: %w", path, err)
	}
	return NewSecretBox(key)
}

// Seal returns plain sealed: a random nonce followed by the ciphertext.
func (b *SecretBox) Seal(plain string) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return b.aead.Seal(nonce, nonce, []byte(plain), nil)
}

// ErrSecretUnreadable: a sealed secret that this installation's key cannot open (a backup
// restored on another machine, a lost key file).
var ErrSecretUnreadable = Errorf(EINVALID, "The stored password cannot be read on this installation (its key file is not the one it was saved with): enter the password again.")

// Open returns the secret sealed by Seal.
func (b *SecretBox) Open(sealed []byte) (string, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return "", ErrSecretUnreadable
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return "", ErrSecretUnreadable
	}
	return string(plain), nil
}
