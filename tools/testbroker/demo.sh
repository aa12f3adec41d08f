#!/usr/bin/env bash
# Starts a testbroker with sample order topics, fills them with kcat and keeps the broker
# in the foreground until Ctrl-C, so the server (or kcat) can be tried against it by hand.
#   usage: tools/testbroker/demo.sh [path/to/testbroker]     (DEMO_MESSAGES=1000 per topic)
set -euo pipefail

BROKER_BIN=${1:-build/tools/testbroker/testbroker}
COUNT=${DEMO_MESSAGES:-1000}
[ -x "$BROKER_BIN" ] || { echo "demo: no testbroker binary at $BROKER_BIN (build it first)" >&2; exit 1; }
command -v kcat >/dev/null || { echo "demo: kcat is not installed" >&2; exit 1; }

WORK=$(mktemp -d)
BROKER_PID=
cleanup() {
  [ -n "$BROKER_PID" ] && kill -TERM "$BROKER_PID" 2>/dev/null && wait "$BROKER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --no-stdin: a background job has no terminal to read; commands go to the control port.
"$BROKER_BIN" --topic orders_csv:4 --topic orders_json:4 --control-port 0 --no-stdin >"$WORK/out" &
BROKER_PID=$!
# The CONTROL line is printed once topics, listeners and the control port are all ready.
for _ in $(seq 100); do
  grep -q '^CONTROL ' "$WORK/out" && break
  kill -0 "$BROKER_PID" 2>/dev/null || { echo "demo: testbroker exited early" >&2; exit 1; }
  sleep 0.1
done
BOOTSTRAP=$(sed -n 's/^BOOTSTRAP //p' "$WORK/out")
CONTROL=$(sed -n 's/^CONTROL //p' "$WORK/out")
[ -n "$CONTROL" ] || { echo "demo: testbroker did not start" >&2; exit 1; }

# Deterministic sample orders (same data every run). Fields: name, nationality, country, gender.
sample_orders() {
  awk -v n="$COUNT" -v format="$1" 'BEGIN {
    split("Johann Georg Faust|Mark Twain|Jane Austen|Marie Curie|Lu Xun|Astrid Lindgren|Gabriel Garcia Marquez|Natsume Soseki", names, "|")
    split("Deutschland|US|UK|France|China|Sverige|Colombia|Japan", nations, "|")
    split("DE|US|GB|FR|CN|SE|CO|JP", countries, "|")
    split("male|male|female|female|male|female|male|male", genders, "|")
    srand(42)
    for (i = 1; i <= n; i++) {
      c = 1 + int(rand() * 8)
      day = 1 + int((i - 1) * 28 / n)                  # orders spread over May 2020, in order
      pay_time = 1588291200 + (day - 1) * 86400 + int(rand() * 86400)
      price = 10 + int(rand() * 990)
      if (format == "csv")
        printf "%d,%d,%s,%s,%s,%d\n", 2020050000 + i, 20200500 + day, names[c], nations[c], genders[c], price
      else
        printf "{\"commodity_id\":\"%d\",\"customer_name\":\"%s\",\"country\":\"%s\",\"pay_time\":%d,\"price\":%d}\n",
               1 + int(rand() * 50), names[c], countries[c], pay_time, price
    }
  }'
}

# No key and no -p: librdkafka spreads the messages over the 4 partitions.
sample_orders csv | kcat -P -b "$BOOTSTRAP" -t orders_csv
sample_orders json | kcat -P -b "$BOOTSTRAP" -t orders_json

cat <<MSG
testbroker is running with $COUNT sample orders in each of orders_csv and orders_json (4 partitions each).
  BOOTSTRAP $BOOTSTRAP
  CONTROL   $CONTROL
Try:  kcat -C -b $BOOTSTRAP -t orders_csv -e -o beginning | head
      bash -c 'exec 3<>/dev/tcp/${CONTROL%:*}/${CONTROL#*:}; echo "broker down 1" >&3; head -1 <&3'
Press Ctrl-C to stop.
MSG
wait "$BROKER_PID"
