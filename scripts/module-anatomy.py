#!/usr/bin/python3
"""module-anatomy.py ELF [--executed FILE]: what the Embedded module (or helper) is made of (issue 29, item 7).

Reads the symbols of an unstripped link (.build-embedded/pam_localauth.so, as `make module` leaves it) and sums
their sizes per component: the source folder that declares the symbol's outermost Swift type (LocalAuthCore/Keychain,
PAMLocalAuth, ...), the standard library's generic code specialised for us, Embedded Swift's runtime and the Unicode
tables. With --executed FILE (one mangled symbol a line: the functions a run executed, as scripts/module-hot-path.sh
writes them), each component also shows how many of its bytes that run executed. Prints a Markdown table, largest
component first; with --list COMPONENT, that component's symbols and their sizes instead.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "..", "Sources")
DECLARATION = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*"
                         r"(?:struct|enum|class|protocol|actor)\s+([A-Za-z_]\w*)")


def declared_types():
    """Maps a top-level type name to the folder (below Sources/) of the file that declares it."""
    found = {}
    for root, _, files in os.walk(SOURCES):
        for name in files:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            folder = os.path.relpath(root, SOURCES)
            with open(path, encoding="utf-8") as source:
                for line in source:
                    match = DECLARATION.match(line)  # top level only: no indentation
                    if match:
                        found.setdefault(match.group(1), folder)
    return found


OURS = ("LocalAuthCore", "PAMLocalAuth", "LocalAuthHelper")
ANYWHERE = re.compile(r"(?:^| in | for | of |conformance |<)(?:static )?(?:\(extension in \w+\):)?"
                      r"(LocalAuthCore|PAMLocalAuth|LocalAuthHelper)\.(\w+)")
OUR_TYPE = re.compile(r"^(?:static )?(?:\(extension in \w+\):)?(LocalAuthCore|PAMLocalAuth|LocalAuthHelper)\.(\w+)")


def strip_context(text):
    """Removes what demangling puts before the function a symbol belongs to (specialisations, closures)."""
    while True:
        if re.match(r"^(generic |function signature |)specialization <", text) or text.startswith("merged "):
            if text.startswith("merged "):
                text = text[len("merged "):]
                continue
            depth, index = 0, text.index("<")
            while index < len(text):
                depth += {"<": 1, ">": -1}.get(text[index], 0)
                index += 1
                if depth == 0:
                    break
            text = text[index:]
            text = text[len(" of "):] if text.startswith(" of ") else text
            continue
        closure = re.match(r"^(?:implicit )?closure #\d+ (?:\(.*?\) )?in ", text)
        if closure:
            text = text[closure.end():]
            continue
        outlined = re.match(r"^outlined \w+ of ", text)
        if outlined:
            text = text[outlined.end():]
            continue
        return text


def component(symbol, demangled, types):
    """The component a symbol belongs to."""
    if "swift_stdlib_" in symbol:
        return "Unicode tables (libswiftUnicodeDataTables)"
    if not symbol.startswith("$e") and not symbol.startswith("$s"):
        if symbol.startswith("swift_") or symbol.startswith("_swift"):
            return "Embedded Swift runtime"
        return "C and other"
    text = strip_context(demangled)
    match = OUR_TYPE.match(text) or ANYWHERE.search(text)
    if match:
        return types.get(match.group(2), match.group(1) + " (top level)")
    if text.startswith("one-time initialization"):
        return "globals' one-time initialisers"
    return "Swift standard library (specialised)"


def main():
    arguments = sys.argv[1:]
    executed = None
    if "--executed" in arguments:
        index = arguments.index("--executed")
        with open(arguments[index + 1], encoding="utf-8") as names:
            executed = {line.strip() for line in names if line.strip()}
        del arguments[index:index + 2]
    listed = None
    if "--list" in arguments:
        index = arguments.index("--list")
        listed = arguments[index + 1]
        del arguments[index:index + 2]
    if len(arguments) != 1:
        sys.exit("usage: module-anatomy.py ELF [--executed FILE] [--list COMPONENT]")
    listing = subprocess.run(["nm", "-S", "--defined-only", arguments[0]], check=True, capture_output=True,
                             text=True).stdout
    types = declared_types()
    rows = [line.split() for line in listing.splitlines() if len(line.split()) == 4]
    demangled = subprocess.run(["swift", "demangle"], input="\n".join(row[3] for row in rows), check=True,
                               capture_output=True, text=True).stdout.splitlines()
    totals, ran, code = {}, {}, {}
    whole = whole_ran = 0
    for fields, readable in zip(rows, demangled):
        size, kind, symbol = int(fields[1], 16), fields[2], fields[3]
        name = component(symbol, readable, types)
        if listed is not None:
            if name == listed:
                print(f"{size:7,} {readable[:160]}")
            continue
        totals[name] = totals.get(name, 0) + size
        whole += size
        if kind in "tTwW":
            code[name] = code.get(name, 0) + size
        if executed is not None and symbol in executed:
            ran[name] = ran.get(name, 0) + size
            whole_ran += size
    if listed is not None:
        return
    header = "| Component | Bytes | of which code |" + (" executed |" if executed is not None else "")
    print(header)
    print("|---|---:|---:|" + ("---:|" if executed is not None else ""))
    for name, size in sorted(totals.items(), key=lambda item: -item[1]):
        row = f"| {name} | {size:,} | {code.get(name, 0):,} |"
        if executed is not None:
            row += f" {ran.get(name, 0):,} |"
        print(row)
    print(f"| **all symbols** | **{whole:,}** | **{sum(code.values()):,}** |" +
          (f" **{whole_ran:,}** |" if executed is not None else ""))


if __name__ == "__main__":
    main()
