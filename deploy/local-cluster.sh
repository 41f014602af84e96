#!/usr/bin/env bash
# N `ptc serve --http` instances behind HAProxy on one machine.
#
#   deploy/local-cluster.sh N PORT [--store URL] [--keep-going] [-- SERVE-ARGS…]
#
# Starts N instances (`ptc serve --http 127.0.0.1:<free port> --instance i<k> --tools
# builtin,testkit`, the `ptc` binary from $PTC_BIN, else on PATH) and HAProxy (`haproxy` on
# PATH) on 127.0.0.1:PORT with deploy/haproxy.cfg filled in for them; waits until every
# instance answers `GET /healthz` and HAProxy answers on PORT, then prints one line, `ready`,
# on stdout. Everything else goes to stderr: each instance's id, pid and address, and the
# instances' and HAProxy's own output.
#
#   --store URL   the run store every instance writes to (`ptc serve --log URL`, e.g.
#                 postgres://…), so that `ptc replay URL` reads all their runs; without it,
#                 each uses ptc serve's default (on one machine: the same SQLite file)
#   --keep-going  an instance that dies is reported and left out (HAProxy's health check takes
#                 it out); without it, any instance dying stops the whole cluster
#   SERVE-ARGS    more arguments for every `ptc serve` (e.g. --root DIR)
#
# Stops everything (instances and HAProxy) on SIGTERM or SIGINT, and when HAProxy or (without
# --keep-going) an instance exits, naming it. Exit status: 0 when stopped by a signal, 1 when
# something died or failed to start, 2 on bad arguments.
set -euo pipefail

usage() {
  echo "usage: $0 N PORT [--store URL] [--keep-going] [-- SERVE-ARGS…]" >&2
  exit 2
}
say() { echo "local-cluster: $*" >&2; }

[ $# -ge 2 ] || usage
count=$1 port=$2
shift 2
[[ $count =~ ^[1-9][0-9]?$ ]] || { say "N must be 1 to 99, not \`$count\`"; usage; }
[[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] \
  || { say "PORT must be 1 to 65535, not \`$port\`"; usage; }
store="" keep_going=0 serve_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --store) [ $# -ge 2 ] || { say "--store needs a URL"; usage; }; store=$2; shift 2 ;;
    --keep-going) keep_going=1; shift ;;
    --) shift; serve_args=("$@"); break ;;
    *) say "unknown argument \`$1\`"; usage ;;
  esac
done

ptc=${PTC_BIN:-$(command -v ptc || true)}
[ -n "$ptc" ] && [ -x "$ptc" ] || { say "no ptc binary: set PTC_BIN or put ptc on PATH"; exit 1; }
haproxy=$(command -v haproxy || true)
[ -n "$haproxy" ] || { say "no haproxy on PATH (Debian: apt-get install haproxy)"; exit 1; }
template="$(dirname "$0")/haproxy.cfg"
[ -r "$template" ] || { say "no HAProxy template at $template"; exit 1; }

state=$(mktemp -d "${TMPDIR:-/tmp}/ptc-cluster.XXXXXX")
declare -A name_of=()  # pid → what it is (i<k>, haproxy)
pids=()

stop_all() {
  trap - TERM INT
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$state"
}
fail() {
  say "$*; stopping"
  stop_all
  exit 1
}
trap 'say "stopping"; stop_all; exit 0' TERM INT

# Waits (up to 60 s) until command "$@" succeeds; fails naming $what otherwise.
wait_for() {
  local what=$1 deadline=$((SECONDS + 60))
  shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || fail "$what did not come up within 60 s"
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null || fail "${name_of[$pid]} (pid $pid) exited while starting"
    done
    sleep 0.05
  done
}

# The address an instance announced on stderr (`ptc: serving MCP at http://ADDR/mcp`),
# once the whole line is there (it may arrive in pieces).
announced() {
  local line
  line=$(grep -m1 -o 'serving MCP at http://[^/]*/mcp' "$state/$1.err" 2>/dev/null) || return 1
  line=${line#serving MCP at http://}
  addr[$1]=${line%/mcp}
}

# `GET /healthz` on ADDR answers 200 naming instance ID, or one of IDS… (bash's /dev/tcp:
# no curl needed).
healthy() {
  local where=$1 reply id
  shift
  { exec 9<>"/dev/tcp/${where%:*}/${where##*:}"; } 2>/dev/null || return 1
  printf 'GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n' "$where" >&9
  reply=$(timeout 5 cat <&9)
  exec 9>&-
  [[ $reply == "HTTP/1."[01]" 200"* ]] || return 1
  for id in "$@"; do
    [[ $reply == *"\"instance\":\"$id\""* ]] && return 0
  done
  return 1
}

declare -A addr=()
for k in $(seq 1 "$count"); do
  id=i$k
  args=(serve --http 127.0.0.1:0 --instance "$id" --tools builtin,testkit)
  [ -n "$store" ] && args+=(--log "$store")
  "$ptc" "${args[@]}" "${serve_args[@]}" >&2 2> >(tee "$state/$id.err" >&2) &
  pids+=($!)
  name_of[$!]="instance $id"
done
servers=""
for k in $(seq 1 "$count"); do
  id=i$k
  wait_for "instance $id" announced "$id"
  wait_for "instance $id" healthy "${addr[$id]}" "$id"
  say "$id pid ${pids[$((k - 1))]} at http://${addr[$id]}/mcp"
  servers+="    use-server $id if { var(txn.ptc_route) -m str $id }"$'\n'
  servers+="    server $id ${addr[$id]}"$'\n'
done

# HAProxy, in the foreground (-db), on the filled-in template.
config="$state/haproxy.cfg"
while IFS= read -r line; do
  case $line in
    __SERVERS__) printf '%s' "$servers" ;;
    *) printf '%s\n' "${line//__BIND__/127.0.0.1:$port}" ;;
  esac
done < "$template" > "$config"
"$haproxy" -c -q -f "$config" >&2 || fail "HAProxy refused the configuration $config"
"$haproxy" -db -f "$config" >&2 &
pids+=($!)
name_of[$!]=haproxy
say "haproxy pid $! on 127.0.0.1:$port"
# Ready once HAProxy accepts and routes: /healthz through it reaches one of the instances.
wait_for "HAProxy on 127.0.0.1:$port" healthy "127.0.0.1:$port" "${!addr[@]}"
echo ready

# Watch: whatever exits, say which; stop everything unless it is a --keep-going instance.
# Polled (`wait -n PIDS` misses a child bash has already reaped and reported), 5 times a second.
alive=("${pids[@]}")
while true; do
  sleep 0.2
  rest=()
  for pid in "${alive[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      rest+=("$pid")
      continue
    fi
    status=0
    wait "$pid" 2>/dev/null || status=$?
    what=${name_of[$pid]}
    if [ "$what" = haproxy ] || [ $keep_going = 0 ]; then
      fail "$what (pid $pid) exited with status $status"
    fi
    say "$what (pid $pid) exited with status $status; HAProxy's health check takes it out"
  done
  alive=("${rest[@]}")
  [ ${#alive[@]} -gt 1 ] || fail "no instance is left"
done
