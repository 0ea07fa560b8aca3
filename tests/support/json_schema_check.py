#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema with the `jsonschema` package.

    json_schema_check.py SCHEMA.json DOCUMENT.json [DOCUMENT.json ...]

The schema is checked first (against its own draft's meta-schema), then every document;
each problem is printed as `<document>: <path in it>: <message>`. Exit status: 0 all valid,
1 a problem was found, 77 the `jsonschema` package is not installed (the caller skips).
Used by tests/unit/manifest/examples_test.cpp for examples/*.yaml, which it converts to JSON first.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print(f"the Python package jsonschema is not installed for {sys.executable}", file=sys.stderr)
    sys.exit(77)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"{argv[1]}: not a valid schema: {e.message}")
        return 1
    validator = validator_class(schema)
    problems = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
            where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            print(f"{path}: {where}: {error.message}")
            problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
