#!/bin/bash
# Every SGF_* setting has one default, written once in rig/settings (the
# table `./run help` prints). One result per setting of the table: every
# default a script writes for it (${SGF_X:-N}, ${SGF_X:=N},
# os.environ.get("SGF_X", N); in ./run's cmd_CMD, the table's CMD=N where
# it has one) is the table's, every default docs/*.md, README.md or a
# script's comment states in a form read here ("SGF_X (N)", "SGF_X ...
# (default N)", "SGF_X=V (the default)", SGF_X at a line's end and "(N"
# at the next one's start) is one of the table's values, a script uses
# it, and `./run help` prints it. A failure settings.unlisted.NAME for
# each SGF_* name a script or document uses that is neither in the table
# nor one of the rig's internal variables below.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
table=rig/settings

# Not settings: paths and state the rig computes, what only the rig hands
# the guest, fixture names, and names that are no variable at all.
internal=" SGF_TOP SGF_TREE SGF_OUT SGF_STOCK SGF_STOCK_OUT SGF_RUNS SGF_PATCHES SGF_FIXES
	SGF_RIG_PATCHES SGF_STAGE_NAME SGF_STAGE_T0 SGF_RUN_T0 SGF_RUN_DESCRIBE SGF_COMMAND SGF_KVERS
	SGF_KVER_SET SGF_KERNEL SGF_RUN SGF_SUITES SGF_TIMEOUT_SCALE SGF_FAILED
	SGF_TGT_CTL SGF_TGT_IQN SGF_TGT_LIB_IQN SGF_TGT_PID SGF_TGT_PORT SGF_TAPES
	SGF_CD SGF_BURN SGF_DEFAULT_POLICY_H SGF_UDEV SGF_USER_ID SGF_USER_GROUPS SGF_DEBIAN_RELEASE "
internal=${internal//[$'\t\n']/ }

# the table
declare -A def used
names=() bad=() fail=0
while read -r name d u m; do
	case $name in '' | '#'*) continue ;; esac
	if ! [[ $name =~ ^SGF_[A-Z0-9_]+$ ]] || [ -z "$m" ]; then
		bad+=("'$name $d $u $m': not NAME DEFAULT USED-BY MEANING")
	elif [ -n "${def[$name]+set}" ]; then
		bad+=("$name is listed twice")
	else
		names+=("$name") def[$name]=$d used[$name]=$u
	fi
done <"$table"
if [ ${#bad[@]} = 0 ] && [ ${#names[@]} -gt 0 ]; then
	echo "ok - settings.table: $table lists ${#names[@]} settings, one a line"
else
	echo "not ok - settings.table: $table: ${#bad[@]} malformed lines, ${#names[@]} settings"
	printf '# %s\n' "${bad[@]}"
	fail=1
fi

# The files read: every script of the project and the libraries (not C
# sources, whose SGF_* are constants; not kernel/'s patch folders), and
# the documents.
mapfile -t scripts < <(find run .ci rig tests kernel policy tools \
	\( -path kernel/patches -o -path kernel/rig-patches -o -name __pycache__ \) -prune -o \
	-type f ! -name '*.[ch]' ! -path "$table" ! -path tests/host/settings.sh -print | sort | xargs grep -lI . --)
docs=(README.md docs/*.md)

# One record a line, fields by tabs:
#   U NAME FILE:LINE               the name occurs (a use)
#   D NAME FILE:LINE SCOPE VALUE   a default a script writes (SCOPE: CMD
#                                  of ./run's cmd_CMD, else "."; VALUE: "-"
#                                  for empty)
#   S NAME FILE:LINE VALUE         a default a text states
records=$(awk '
function upto(s,    i, c, d) {	# s up to its first unmatched closing bracket
	d = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "(" || c == "{" || c == "[") d++
		else if (c == ")" || c == "}" || c == "]") { if (d == 0) return substr(s, 1, i - 1); d-- }
	}
	return s
}
function unquote(s) {
	sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
	if (s ~ /^".*"$/ || s ~ /^\047.*\047$/) s = substr(s, 2, length(s) - 2)
	return s == "" ? "-" : s
}
function num(s) {	# "10,000)" -> 10000
	match(s, /^[0-9][0-9,.]*/); s = substr(s, 1, RLENGTH)
	sub(/[.,]+$/, "", s); gsub(/,/, "", s)
	return s
}
function line(f, n, l, next_l,    s, name, r, v, q, at, scope) {
	if (f == "run" && match(l, /^[a-z_]+\(\)/)) fn = substr(l, 1, RLENGTH - 2)
	scope = (f == "run" && fn ~ /^cmd_/) ? substr(fn, 5) : "."
	at = f ":" n
	sub(/^[ \t#*\/]+/, "", next_l)
	s = l
	while (match(s, /SGF_[A-Z0-9][A-Z0-9_]*/)) {
		name = substr(s, RSTART, RLENGTH); sub(/_+$/, "", name)
		r = substr(s, RSTART + RLENGTH) " " next_l
		s = substr(s, RSTART + RLENGTH)
		# (a comment that names a setting does not use it)
		if (l !~ /^[ \t]*#/) print "U\t" name "\t" at
		# stated defaults
		if (match(r, /^`? *\([0-9]/)) {
			print "S\t" name "\t" at "\t" num(substr(r, RLENGTH))
		} else if (match(r, /^=[A-Za-z0-9._-]+`? *\(the default\)/)) {
			v = substr(r, 2); sub(/[` (].*/, "", v)
			print "S\t" name "\t" at "\t" v
		} else {
			q = s
			if (match(q, /SGF_[A-Z0-9]/)) q = substr(q, 1, RSTART - 1)
			if (match(q, /\(default [^ ,;)]+/)) {
				v = substr(q, RSTART + 9, RLENGTH - 9); gsub(/`/, "", v)
				if (v ~ /^[0-9]/) v = num(v)
				print "S\t" name "\t" at "\t" v
			}
		}
	}
	if (f ~ /\.md$/) return
	# defaults written in shell
	s = l
	while (match(s, /\$\{SGF_[A-Z0-9_]+:?[-=]/)) {
		name = substr(s, RSTART + 2, RLENGTH - 2); sub(/:?[-=]$/, "", name)
		s = substr(s, RSTART + RLENGTH)
		print "D\t" name "\t" at "\t" scope "\t" unquote(upto(s))
	}
	# and in Python
	s = l
	while (match(s, /os\.(environ\.get|getenv)\(["\047]SGF_[A-Z0-9_]+["\047]/)) {
		name = substr(s, RSTART, RLENGTH); sub(/^[^"\047]*["\047]/, "", name); sub(/["\047]$/, "", name)
		s = substr(s, RSTART + RLENGTH)
		if (match(s, /^ *, */)) v = upto(substr(s, RLENGTH + 1))
		else if (match(s, /^\) *or */)) v = substr(s, RLENGTH + 1)
		else v = ""
		print "D\t" name "\t" at "\t" scope "\t" unquote(v)
	}
}
FNR == 1 { if (pf != "") line(pf, pn, pl, ""); fn = ""; pf = "" }
{ if (pf != "") line(pf, pn, pl, $0); pf = FILENAME; pn = FNR; pl = $0 }
END { if (pf != "") line(pf, pn, pl, "") }
' "${scripts[@]}" "${docs[@]}" | sort -u)

script_records=$(grep -vE '	(README\.md|docs/[^	]*\.md):[0-9]+$' <<<"$records")
# the ./run commands a table's CMD=N may name
cmds=" $(sed -n 's/^cmd_\([a-z]*\)() {.*/\1/p' run | tr '\n' ' ') "
help=$(./run help 2>&1)

# numbers VALUE: the numbers in a value, one a line
numbers() { grep -oE '[0-9]+' <<<"$1" | sort -u; }
# agrees EXPECTED VALUE: a literal is equal; a computed value (<...>)
# holds every number of the script's expression
agrees() {
	case $1 in
	*'<'*) [ -z "$(comm -13 <(numbers "$1") <(numbers "$2"))" ] ;;
	*) [ "$1" = "$2" ] ;;
	esac
}

for name in "${names[@]}"; do
	problems=()
	IFS=, read -ra items <<<"${def[$name]}"
	base=${items[0]}
	declare -A per=() seen=()
	[[ $base == *=* ]] && problems+=("its DEFAULT ${def[$name]} starts with no value of its own")
	for it in "${items[@]:1}"; do
		k=${it%%=*}
		if [[ $it != *=* ]] || [[ $cmds != *" $k "* ]]; then
			problems+=("'$it' in its DEFAULT is not CMD=VALUE for a ./run command (${cmds# })")
		else
			per[$k]=${it#*=}
		fi
	done
	nd=0
	while IFS=$'\t' read -r _ _ at scope val; do
		nd=$((nd + 1))
		[ "$scope" != . ] || scope=''
		if [ -n "$scope" ] && [ -n "${per[$scope]+set}" ]; then
			want=${per[$scope]} seen[$scope]=1 for=" for ./run $scope"
		else
			want=$base for=''
		fi
		agrees "$want" "$val" ||
			problems+=("$at${scope:+ (cmd_$scope)} writes the default '$val', the table says '$want'$for")
	done < <(awk -F'\t' -v n="$name" '$1 == "D" && $2 == n' <<<"$records")
	for k in "${!per[@]}"; do
		[ -n "${seen[$k]+set}" ] ||
			problems+=("the table gives ./run $k the default ${per[$k]}, which cmd_$k does not write")
	done
	[ "$nd" -gt 0 ] || [ "$base" = - ] ||
		problems+=("no script writes its default $base (a setting without one is '-')")
	IFS=, read -ra items <<<"${used[$name]}"
	for it in "${items[@]}"; do
		[[ " all boot$cmds" == *" $it "* ]] || compgen -G "$it" >/dev/null ||
			problems+=("'$it' in its USED-BY is neither all, a ./run command nor a file of the project")
	done
	ns=0
	while IFS=$'\t' read -r _ _ at val; do
		ns=$((ns + 1))
		ok=
		for it in "$base" "${per[@]}"; do
			if [[ $it == *'<'* ]]; then
				[[ $val =~ ^[0-9]+$ ]] && agrees "$it" "$val" && ok=1
			else
				[ "$it" = "$val" ] && ok=1
			fi
		done
		[ -n "$ok" ] || problems+=("$at states the default '$val', the table says ${def[$name]}")
	done < <(awk -F'\t' -v n="$name" '$1 == "S" && $2 == n' <<<"$records")
	grep -q "^U	$name	" <<<"$script_records" || problems+=("no script uses it")
	[[ $internal == *" $name "* ]] && problems+=("it is one of the rig's internal variables")
	grep -qE "^$name +" <<<"$help" || problems+=("./run help does not print it")
	if [ ${#problems[@]} = 0 ]; then
		echo "ok - settings.$name: default ${def[$name]}, as its $nd script defaults and $ns stated defaults say; ./run help prints it"
	else
		echo "not ok - settings.$name: ${problems[0]}$([ ${#problems[@]} -gt 1 ] && echo " (and $((${#problems[@]} - 1)) more)")"
		printf '# %s\n' "${problems[@]}"
		fail=1
	fi
	unset per seen
done

# every SGF_* name used is a setting of the table or an internal variable
while IFS=$'\t' read -r name at; do
	[ -n "${def[$name]+set}" ] || [[ $internal == *" $name "* ]] && continue
	echo "not ok - settings.unlisted.$name: $at uses $name, which $table does not list (nor is it an internal variable of tests/host/settings.sh)"
	fail=1
done < <(awk -F'\t' '$1 == "U" && !seen[$2]++ { print $2 "\t" $3 }' <<<"$records")
exit $fail
