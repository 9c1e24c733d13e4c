#!/usr/bin/env bash
# Builds the Spark standalone image (images/spark) on top of the project's image: wheels for
# requirements-verify.txt are built here with the collection's venv (the containers run the same
# Debian and Python, and reach no package index) and installed into a venv in the image.
# Does nothing when the image was built from the current Dockerfile and requirements.
set -euo pipefail

image=${KAFKAOPS_SPARK_IMAGE:-kafkaops/spark:bookworm}
base_image=${KAFKAOPS_IMAGE:-kafkaops/systemd-java:bookworm}
top=$(cd "$(dirname "$0")/.." && pwd)
python=${KAFKAOPS_PYTHON:-$top/.venv/bin/python}

base_id=$(docker image inspect -f '{{ .Id }}' "$base_image" 2>/dev/null) \
  || { echo "$base_image is missing: build it first (scripts/build-image.sh)" >&2; exit 1; }
build_sha=$(cat "$top/images/spark/Dockerfile" "$top/requirements-verify.txt" \
  <(echo "$base_id") | sha256sum | cut -c1-16)
built_sha=$(docker image inspect -f '{{ index .Config.Labels "kafkaops.build-sha" }}' "$image" 2>/dev/null || true)
if [ "$built_sha" = "$build_sha" ]; then
  exit 0
fi

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$top/images/spark/Dockerfile" "$context/"
mkdir "$context/wheelhouse"
grep -v '^#' "$top/requirements-verify.txt" | grep . >"$context/wheelhouse/requirements.txt"
echo "Building wheels for $image"
"$python" -m pip wheel -q -r "$context/wheelhouse/requirements.txt" -w "$context/wheelhouse"
echo "Building $image"
DOCKER_BUILDKIT=0 docker build -q -t "$image" --build-arg BASE_IMAGE="$base_image" \
  --build-arg BUILD_SHA="$build_sha" "$context" >/dev/null
