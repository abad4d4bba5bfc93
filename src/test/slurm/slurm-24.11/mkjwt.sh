#!/bin/bash
# mkjwt.sh KEYFILE USER [LIFESPAN_S] - print an HS256 JWT as Slurm's auth/jwt checks it (claims sun, iat, exp),
# signed with the key file's raw bytes. A negative LIFESPAN_S gives an already expired token.
# Send it as X-SLURM-USER-TOKEN (with X-SLURM-USER-NAME: USER). Needs openssl, od, base64.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: mkjwt.sh KEYFILE USER [LIFESPAN_S]" >&2; exit 2; }
key=$1 user=$2 life=${3:-3600}
[[ $life =~ ^-?[0-9]+$ ]] || { echo "LIFESPAN_S must be an integer" >&2; exit 2; }
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
now=$(date +%s)
head=$(printf '{"alg":"HS256","typ":"JWT"}' | b64url)
body=$(printf '{"sun":"%s","iat":%d,"exp":%d}' "$user" "$now" $((now + life)) | b64url)
hexkey=$(od -An -v -tx1 "$key" | tr -d ' \n')
sig=$(printf '%s.%s' "$head" "$body" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | b64url)
echo "$head.$body.$sig"
