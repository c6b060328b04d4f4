# Sourced by the tests that read the project's sources rather than run its
# programs (not a test itself): sets root (GPM_ROOT, or the checkout above
# this folder).
#   need_sources NAME PATH...  where a PATH (relative to root) is missing,
#                              as in a bundle, which carries no sources:
#                              says "skip - NAME: no PATH in ROOT (a
#                              bundle)" and exits the test
root=${GPM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
need_sources() {
    _name=$1
    shift
    for _p in "$@"; do
        if [ ! -e "$root/$_p" ]; then
            echo "skip - $_name: no $_p in $root (a bundle)"
            exit 0
        fi
    done
}
