#!/usr/bin/env python3
"""Validate rendered Kubernetes manifests offline, without a cluster.

Usage: validate.py KUBERNETES_VERSION CRD_FILE... < rendered.yaml

Every object of a built-in kind is checked by kubernetes-validate against that Kubernetes
version's strict schema (unknown fields are errors). Every object of a kind one of the
CRD files defines is checked with jsonschema against that CRD's openAPIV3Schema, made
strict the same way (an object schema with properties and no
x-kubernetes-preserve-unknown-fields gets additionalProperties: false, which is what the
API server's strict field validation enforces). Exits 1 naming each object that fails.
"""
import copy
import sys

import jsonschema
import kubernetes_validate
import yaml


def strict(schema):
    """The schema with unknown properties refused wherever the API server would refuse them."""
    schema = copy.deepcopy(schema)

    def walk(s):
        if not isinstance(s, dict):
            return
        if (
            s.get("type") == "object"
            and "properties" in s
            and "additionalProperties" not in s
            and not s.get("x-kubernetes-preserve-unknown-fields")
        ):
            s["additionalProperties"] = False
        for key in ("properties", "patternProperties"):
            for sub in s.get(key, {}).values():
                walk(sub)
        for key in ("items", "additionalProperties", "not"):
            walk(s.get(key))
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in s.get(key, []):
                walk(sub)

    walk(schema)
    # metadata is validated by the API server's ObjectMeta, not the CRD: allow it whole.
    schema.setdefault("properties", {})["metadata"] = {"type": "object"}
    return schema


def crd_schemas(paths):
    """{(apiVersion, kind): strict openAPIV3Schema} of every served version of the CRDs."""
    out = {}
    for path in paths:
        with open(path) as f:
            for crd in yaml.safe_load_all(f):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                group = crd["spec"]["group"]
                kind = crd["spec"]["names"]["kind"]
                for version in crd["spec"]["versions"]:
                    if version.get("served"):
                        schema = version["schema"]["openAPIV3Schema"]
                        out[(f"{group}/{version['name']}", kind)] = strict(schema)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    version = sys.argv[1]
    crds = crd_schemas(sys.argv[2:])
    failures = 0
    checked = 0
    for obj in yaml.safe_load_all(sys.stdin):
        if not obj:
            continue
        name = f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"
        key = (obj.get("apiVersion"), obj.get("kind"))
        try:
            if key in crds:
                errors = sorted(
                    jsonschema.Draft7Validator(crds[key]).iter_errors(obj), key=lambda e: list(e.path)
                )
                if errors:
                    raise ValueError(
                        "; ".join(f"{'.'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors)
                    )
                how = "CRD schema"
            else:
                kubernetes_validate.validate(obj, version, strict=True)
                how = f"Kubernetes {version} strict"
            checked += 1
            print(f"ok   {name} ({how})")
        except (
            ValueError,
            kubernetes_validate.ValidationError,
            kubernetes_validate.SchemaNotFoundError,
            kubernetes_validate.InvalidSchemaError,
        ) as e:
            failures += 1
            print(f"FAIL {name}: {getattr(e, 'message', e)}")
    if failures or not checked:
        print(f"{failures} of {failures + checked} objects failed validation")
        sys.exit(1)
    print(f"all {checked} objects valid")


if __name__ == "__main__":
    main()
