#!/usr/bin/env bash
# Builds a minimal Redis image from the machine's own redis-server binary, for machines that cannot
# pull images (see ../shared/MACHINE.md). Usage: build-redis-image.sh [image-name]
set -euo pipefail
image="${1:-local/redis:7.0}"
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "image $image already present"
  exit 0
fi
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
for bin in /usr/bin/redis-server /usr/bin/redis-cli; do
  mkdir -p "$root$(dirname "$bin")"
  cp -L "$bin" "$root$bin"
  for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
done
# redis-sentinel is redis-server under another name.
ln -s redis-server "$root/usr/bin/redis-sentinel"
mkdir -p "$root/tmp" "$root/data"
chmod 1777 "$root/tmp" "$root/data"
tar -C "$root" -c . | docker import -c 'CMD ["/usr/bin/redis-server"]' -c 'WORKDIR /data' - "$image" >/dev/null
echo "built image $image"
