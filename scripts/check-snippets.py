#!/usr/bin/env python3
"""check-snippets.py [MARKDOWN...]: type-checks every ```swift block of the given Markdown files
against this package's modules, so the code the docs show compiles as written (Swift 6 mode).

Each block is type-checked on its own, as the `main.swift` of a program (top-level code allowed),
with `swiftc -typecheck` against the modules of a debug build (`swift build` first; CI runs it after
the build). A block may need names it does not define (the `api` of an example, a `view`): an HTML
comment right before the block, invisible on GitHub, gives them:

    <!-- snippet-setup
    struct User {}
    let view = View()
    -->

A `<!-- snippet-prelude … -->` comment gives names to every block after it in the file (a guide's
imports and the names its examples share); a block's own setup comes after the prelude. The
`import` lines of the block, the prelude and the setup go first, then the prelude, the setup and
the block. A block that is not Swift source on its
own (a `Package.swift` fragment) is fenced as ```swift no-compile and skipped. A block that uses the
integrations is fenced as ```swift traits: it is checked against the build named by
SNIPPET_TRAITS_BUILD (a debug build with --enable-all-traits, e.g. .build-traits/debug), and
skipped, saying so, when that is not set.
Without arguments it checks README.md and every docs/*.md (CHECKED below). Exits 1 if any block fails, printing
the compiler's errors with the Markdown file and the block's first line.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The README and every guide in docs/: a guide's blocks compile, or are fenced `no-compile` with the
# reason in the text around them.
CHECKED = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
# The debug build whose modules the blocks are checked against.
BUILD = os.environ.get("SNIPPET_BUILD", os.path.join(ROOT, ".build", "debug"))
TRAITS_BUILD = os.environ.get("SNIPPET_TRAITS_BUILD")


def blocks(path):
    """Yields (first line number, setup, code) for each ```swift block that should compile."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i, setup, prelude = 0, "", ""
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("<!-- snippet-prelude"):
            j = i + 1
            body = []
            while not lines[j].strip().startswith("-->"):
                body.append(lines[j])
                j += 1
            prelude, i = "\n".join(body), j + 1
            continue
        if line.strip().startswith("<!-- snippet-setup"):
            j = i + 1
            body = []
            while not lines[j].strip().startswith("-->"):
                body.append(lines[j])
                j += 1
            setup, i = "\n".join(body), j + 1
            continue
        m = re.match(r"^(\s*)```swift(.*)$", line)
        if m:
            indent, info = m.group(1), m.group(2)
            j = i + 1
            code = []
            while not lines[j].strip().startswith("```"):
                code.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
                j += 1
            if "no-compile" not in info:
                yield i + 1, "\n".join([prelude, setup]), "\n".join(code), "traits" in info
            setup, i = "", j + 1
            continue
        if line.strip():
            setup = ""  # a setup comment applies to the block right after it only
        i += 1


def main():
    files = sys.argv[1:] or CHECKED
    if not os.path.isdir(os.path.join(BUILD, "Modules")):
        sys.exit(f"no build at {BUILD}: run `swift build` first")

    def includes(build):
        found = []
        checkouts = os.path.join(os.path.dirname(build), "checkouts")
        for mm in glob.glob(os.path.join(checkouts, "**", "include", "module.modulemap"), recursive=True):
            found += ["-I", os.path.dirname(mm)]
        # The module maps SwiftPM writes for C targets that have none of their own (NIO's).
        for mm in glob.glob(os.path.join(os.path.realpath(build), "*.build", "module.modulemap")):
            found += ["-I", os.path.dirname(mm)]
        return found

    failures = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            for line, setup, code, traits in blocks(os.path.join(ROOT, path)):
                if traits and not TRAITS_BUILD:
                    print(f"skipped {path}:{line} (integrations: set SNIPPET_TRAITS_BUILD)")
                    continue
                build = TRAITS_BUILD if traits else BUILD
                modules = os.path.join(build, "Modules")
                imports = [l for l in (code + "\n" + setup).split("\n") if l.startswith("import ")]
                imports = sorted(set(imports), key=imports.index)
                setup = "\n".join(l for l in setup.split("\n") if not l.startswith("import "))
                rest = [l for l in code.split("\n") if not l.startswith("import ")]
                ours = {"CancelCore", "Tokens", "Promises", "Futures", "Adapters"}
                missing = [
                    i.split()[1] for i in imports
                    if i.split()[1] in ours and not os.path.exists(os.path.join(modules, i.split()[1] + ".swiftmodule"))]
                if missing:
                    failures += 1
                    print(f"FAILED {path}:{line}: module not in {build}: {', '.join(missing)}")
                    continue
                source = "\n".join(imports + ["// setup", setup, "// the block"] + rest) + "\n"
                main_swift = os.path.join(tmp, "main.swift")
                open(main_swift, "w").write(source)
                result = subprocess.run(
                    ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules] + includes(build) + [main_swift],
                    capture_output=True, text=True)
                checked += 1
                if result.returncode != 0:
                    failures += 1
                    print(f"FAILED {path}:{line}")
                    print(result.stderr.replace(main_swift, f"{path}(block at line {line})"))
    print(f"snippets: {checked} checked, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
