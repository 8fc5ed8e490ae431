#!/usr/bin/env bash
# Makes the TLS fixtures of the tests in directory $1, with openssl: a CA, two server certificates for
# 127.0.0.1/localhost with different keys, a client certificate (PEM and PKCS#12), an expired server
# certificate, one for another host name, a self-signed one, and the SPKI SHA-256 pins of both servers.
set -euo pipefail
dir=$1
cd "$dir"
quiet() { "$@" >/dev/null 2>&1; }

quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=RestingKit Test CA" -keyout ca.key -out ca.pem
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
printf 'extendedKeyUsage=clientAuth\n' > client.ext

sign() {  # name subject extfile
    quiet openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$1.key" -out "$1.csr"
    quiet openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile "$3" -out "$1.pem"
}
sign server "/CN=127.0.0.1" server.ext
sign other "/CN=127.0.0.1" server.ext
sign client "/CN=RestingKit test client" client.ext
quiet openssl pkcs12 -export -in client.pem -inkey client.key -passout pass:secret -out client.p12
# Signed by the CA, but for another name; and one for the right name that no CA signed.
printf 'subjectAltName=DNS:wrong.example\n' > mismatched.ext
sign mismatched "/CN=wrong.example" mismatched.ext
quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout selfsigned.key -out selfsigned.pem

# An expired certificate, through `openssl ca` (x509 -req cannot backdate).
mkdir -p ca-db
: > ca-db/index.txt
echo 1000 > ca-db/serial
cat > ca.cnf <<CNF
[ca]
default_ca = test
[test]
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
certificate = ca.pem
private_key = ca.key
default_md = sha256
policy = anything
copy_extensions = copy
[anything]
commonName = supplied
CNF
quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" -keyout expired.key -out expired.csr
quiet openssl ca -batch -config ca.cnf -startdate 20200101000000Z -enddate 20200102000000Z -in expired.csr -out expired.pem

pin() { openssl x509 -in "$1" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64; }
echo "sha256//$(pin server.pem)" > server.pin
echo "sha256//$(pin other.pem)" > other.pin
