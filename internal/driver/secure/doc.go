// Package secure holds the secure transports and their certificates:
//
//   - "tls": TLS 1.3 (crypto/tls) over TCP with Nagle off, framed like the
//     tcp transport (a 4-byte length header the echoer returns unchanged).
//     The interprocess_*_tcp_security sub-experiments. As over plain TCP,
//     best effort and reliable differ only in principle: TLS cannot drop a
//     record half-written, so both block until the kernel takes a message.
//   - "dtls": DTLS 1.2 (github.com/pion/dtls/v3) over UDP, the
//     interprocess_*_security sub-experiments. Reliable retransmits exactly
//     like the udp transport.
//
// # Verification
//
// Both ends present a certificate and verify the other's against
// Security.CAFile: the pinger checks the echoer's certificate for the
// server name (Security.ServerName, else the host of the dialled address,
// an IP address being matched against the certificate's IP SANs), the
// echoer requires and verifies the pinger's client certificate. Nothing is
// ever accepted unverified. A wrong CA fails the handshake with an error
// that names the CA file.
//
// GenerateFiles creates, for one run, a fresh ECDSA P-256 CA and a
// certificate for each end valid for 127.0.0.1, ::1, localhost and any
// target host, and writes them as PEM files that both processes read;
// users with their own PKI pass CA, certificate and key files instead.
//
// # DTLS message size
//
// DTLS does not fragment application data, and pion reads each datagram
// into an 8192-byte buffer, so one record carries at most 8192 − 37 bytes of
// plaintext with the default AES-GCM suite (13-byte record header, 8-byte
// explicit nonce, 16-byte tag). A message larger than FragmentPayload bytes
// is therefore sent as several records, each prefixed with an 8-byte
// fragment header (message number, fragment index, fragment count, all
// big-endian) that the echoer returns unchanged with the record; the pinger
// reassembles them and returns exactly the message. A 16 KB message takes
// three records. A lost fragment loses the message (best effort) or makes
// the reliable pinger resend the whole message. A record of an earlier
// message (the late echo of a resend) is ignored while a later one is being
// reassembled; message numbers compare in serial-number order, so they may
// wrap, skipping 0, which is the settle probe's.
package secure
