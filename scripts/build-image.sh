#!/usr/bin/env bash
# Builds the project's container image without any registry: a minimal Debian bookworm root from
# debootstrap is imported as a base image, then images/systemd-java/Dockerfile adds systemd, Python
# and Java. Both images are kept; the script does nothing when the final image was built from
# the current Dockerfile.
# The Debian mirror is read from this machine's own apt sources.
set -euo pipefail

image=${KAFKAOPS_IMAGE:-kafkaops/systemd-java:bookworm}
base_image=kafkaops/debian-base:bookworm
cache_dir=${KAFKAOPS_CACHE:-$HOME/.cache/kafkaops}
top=$(cd "$(dirname "$0")/.." && pwd)

# Rebuild when the Dockerfile or a file it copies changed since the image was built.
dockerfile_sha=$(cat "$top"/images/systemd-java/* | sha256sum | cut -c1-16)
built_sha=$(docker image inspect -f '{{ index .Config.Labels "kafkaops.dockerfile-sha" }}' "$image" 2>/dev/null || true)
if [ "$built_sha" = "$dockerfile_sha" ]; then
  exit 0
fi

debian_mirror() {
  local uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list)
  fi
  [ -n "$uri" ] || { echo "No Debian mirror found in this machine's apt sources" >&2; exit 1; }
  echo "$uri"
}

if ! docker image inspect "$base_image" >/dev/null 2>&1; then
  mkdir -p "$cache_dir"
  rootfs_tar="$cache_dir/debian-bookworm-minbase.tar"
  if [ ! -f "$rootfs_tar" ]; then
    command -v debootstrap >/dev/null 2>&1 || {
      apt-get update -q >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
    }
    rootfs=$(mktemp -d)
    echo "debootstrap of bookworm into a temporary folder (about 90 s)"
    debootstrap --variant=minbase bookworm "$rootfs" "$(debian_mirror)" >"$cache_dir/debootstrap.log" 2>&1
    tar -C "$rootfs" -cf "$rootfs_tar.tmp" .
    rm -rf "$rootfs"
    mv "$rootfs_tar.tmp" "$rootfs_tar"
  fi
  docker import "$rootfs_tar" "$base_image" >/dev/null
fi

echo "Building $image"
DOCKER_BUILDKIT=0 docker build -q -t "$image" --build-arg BASE_IMAGE="$base_image" \
  --build-arg DOCKERFILE_SHA="$dockerfile_sha" "$top/images/systemd-java"
