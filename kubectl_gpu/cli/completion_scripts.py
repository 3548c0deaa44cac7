"""The bash, zsh and fish scripts `kubectl gpu completion SHELL` prints. Each calls `PROG __complete WORDS...
PARTIAL` (the protocol of `kubectl_complete-gpu`: candidates one a line, then `:<directive>`; directive 4 means
"no file names") and hands the candidates to the shell. `@PROG@` is the executable's name, `@FUNC@` a
function name made from it."""

from __future__ import annotations

__all__ = ["SCRIPTS"]

BASH = r"""# bash completion for @PROG@ (kubectl-gpu): source <(@PROG@ completion bash)
# `kubectl gpu <TAB>` needs none of this: kubectl runs the kubectl_complete-gpu executable.
@FUNC@() {
    local line=${COMP_LINE:0:COMP_POINT} cur out item directive=0 prefix
    local -a words
    read -r -a words <<< "$line"
    if [[ -z $line || $line == *[[:space:]] ]]; then
        cur=""
    else
        cur=${words[${#words[@]}-1]}
        unset 'words[${#words[@]}-1]'
    fi
    out=$("${words[0]}" __complete "${words[@]:1}" "$cur" 2>/dev/null) || return 0
    COMPREPLY=()
    while IFS= read -r item; do
        case $item in
            :[0-9]*) directive=${item#:} ;;
            "") ;;
            *) COMPREPLY+=("$item") ;;
        esac
    done <<< "$out"
    # bash completes only what follows the last '=' or ':' of the word (COMP_WORDBREAKS): EKS context names
    # are ARNs full of colons, values follow --flag=
    if [[ $cur == *[=:]* ]]; then
        prefix=${cur%"${cur##*[=:]}"}
        COMPREPLY=("${COMPREPLY[@]#"$prefix"}")
    fi
    if (( ${#COMPREPLY[@]} == 0 && (directive & 4) == 0 )); then
        compopt -o default 2>/dev/null
    fi
    return 0
}
complete -F @FUNC@ @PROG@
"""

ZSH = r"""#compdef @PROG@
# zsh completion for @PROG@ (kubectl-gpu): source <(@PROG@ completion zsh), or save it as _@PROG@ in $fpath.
@FUNC@() {
    local -a lines candidates
    local line directive=0
    lines=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
    for line in "${lines[@]}"; do
        if [[ $line == :<-> ]]; then
            directive=${line#:}
        elif [[ -n $line ]]; then
            candidates+=("$line")
        fi
    done
    if (( ${#candidates} )); then
        compadd -Q -- "${candidates[@]}"
    elif (( (directive & 4) == 0 )); then
        _files
    fi
}
if [[ "$funcstack[1]" == "_@PROG@" ]]; then
    @FUNC@ "$@"
else
    compdef @FUNC@ @PROG@
fi
"""

FISH = r"""# fish completion for @PROG@ (kubectl-gpu): @PROG@ completion fish | source
# or save it as ~/.config/fish/completions/@PROG@.fish
function @FUNC@
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l prog $words[1]
    set -e words[1]
    set -l directive 0
    set -l found 0
    for line in ($prog __complete $words "$cur" 2>/dev/null)
        if string match -qr '^:[0-9]+$' -- $line
            set directive (string sub -s 2 -- $line)
        else if test -n "$line"
            set found 1
            echo $line
        end
    end
    if test $found -eq 0 -a "$directive" != 4
        __fish_complete_path "$cur"
    end
end
complete -c @PROG@ -f -a '(@FUNC@)'
"""

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH}
