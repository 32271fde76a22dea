#!/usr/bin/env bash
# Offline validation of the Kubernetes manifests (no cluster): both overlays render with
# kustomize, every built-in object passes kubernetes-validate's strict schema of
# KUBERNETES_VERSION, and the CloudNativePG Cluster passes the CRD in crds/ (strict).
# Two deliberately broken objects must be refused, so a validator that accepts anything
# fails this script too.
set -euo pipefail
cd "$(dirname "$0")"

KUBERNETES_VERSION="${KUBERNETES_VERSION:-1.32.0}"
KUSTOMIZE_VERSION=v5.5.0
CRDS=(crds/postgresql.cnpg.io_clusters.yaml)

# kustomize: kubectl's built-in one, else a pinned release downloaded into a cache.
if command -v kubectl >/dev/null 2>&1; then
  render() { kubectl kustomize "$1"; }
else
  KUSTOMIZE="$(command -v kustomize || true)"
  if [ -z "$KUSTOMIZE" ]; then
    dir="${XDG_CACHE_HOME:-$HOME/.cache}/shinpan-ci/kustomize-$KUSTOMIZE_VERSION"
    KUSTOMIZE="$dir/kustomize"
    if [ ! -x "$KUSTOMIZE" ]; then
      mkdir -p "$dir"
      curl -fsSL "https://github.com/kubernetes-sigs/kustomize/releases/download/kustomize%2F$KUSTOMIZE_VERSION/kustomize_${KUSTOMIZE_VERSION}_linux_amd64.tar.gz" |
        tar -xz -C "$dir" kustomize
    fi
  fi
  render() { "$KUSTOMIZE" build "$1"; }
fi

python3 -c 'import kubernetes_validate, jsonschema, yaml' 2>/dev/null ||
  python3 -m pip install --quiet kubernetes-validate==1.37.0 jsonschema pyyaml

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for overlay in single ha; do
  echo "== overlay $overlay (Kubernetes $KUBERNETES_VERSION)"
  render "overlays/$overlay" >"$tmp/$overlay.yaml"
  python3 validate.py "$KUBERNETES_VERSION" "${CRDS[@]}" <"$tmp/$overlay.yaml"
done

echo "== negative controls (each must be refused)"
python3 - "$tmp/ha.yaml" "$tmp" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
dep = next(d for d in docs if d["kind"] == "Deployment")
dep["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"]["serviceName"] = "x"
cluster = next(d for d in docs if d["kind"] == "Cluster")
cluster["spec"]["postgresql"]["synchronous"]["method"] = "all"
cluster["spec"]["instancess"] = 3
yaml.safe_dump(dep, open(f"{sys.argv[2]}/bad-deployment.yaml", "w"))
yaml.safe_dump(cluster, open(f"{sys.argv[2]}/bad-cluster.yaml", "w"))
PY
for bad in bad-deployment bad-cluster; do
  if python3 validate.py "$KUBERNETES_VERSION" "${CRDS[@]}" <"$tmp/$bad.yaml"; then
    echo "validate.sh: $bad.yaml was accepted: the validation checks nothing" >&2
    exit 1
  fi
done
echo "manifests valid"
