# Definitions where jq 1.6 answers otherwise than jaq's standard library (each checked against
# jq 1.6 on Ubuntu 22.04). Later definitions shadow jaq's.
def tostring: _jq_tostring;
def tojson: _jq_tojson;
def @text: tostring;
def @json: tojson;
def @html: _jq_format("html");
def @uri: _jq_format("uri");
def @sh: _jq_format("sh");
def @base64: _jq_format("base64");
def @base64d: _jq_format("base64d");
def @csv: _jq_format("csv");
def @tsv: _jq_format("tsv");
# Nulls join as nothing, numbers and booleans as their JSON text.
def join($sep): reduce .[] as $x (null;
  (if . == null then "" else . + $sep end)
  + ($x | if . == null then "" elif type == "boolean" or type == "number" then tojson else . end)) // "";
# Bottom-up, keys in their order.
def walk(f): if type == "object" then map_values(walk(f)) | f
  elif type == "array" then map(walk(f)) | f else f end;
# No more input is an error named "break".
def input: first(inputs, error("break"));
def debug: _jq_debug;
def halt_error($code): _jq_halt_error($code);
def halt_error: _jq_halt_error(5);
# Anything but two strings leaves the input as it is.
def ltrimstr($x): if type == "string" and ($x | type) == "string" and startswith($x)
  then .[($x | length):] else . end;
def rtrimstr($x): if type == "string" and ($x | type) == "string" and endswith($x)
  then .[:length - ($x | length)] else . end;
def leaf_paths: paths(scalars);
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def tostream: _jq_tostream;
def fromjson: _jq_fromjson;
def tonumber: if type == "number" then . else _jq_fromjson end;
def INDEX(stream; f): reduce stream as $row ({}; .[$row | f | tostring] = $row);
def INDEX(f): INDEX(.[]; f);
# Division by zero is an error in jq, so these do not divide.
def nan: _jq_nan;
def infinite: 1e1000;
def isnan: . < nan and nan < .;
def isinfinite: . == infinite or . == -infinite;
def isfinite: isnumber and (isinfinite | not);
def isnormal: isnumber and ((. == 0 or isnan or isinfinite) | not);
def finites: select(isfinite);
def normals: select(isnormal);
def logb: if . == 0 then -infinite elif isinfinite then infinite elif isnan then . else ilogb | . + 0.0 end;
def significand: if isinfinite or isnan then . elif . == 0 then 0 else scalbln(.; ilogb | -1 * .) end;
# Paths are deleted from the last, so that earlier deletions do not shift later ones.
def delpaths($paths): reduce ($paths | unique | reverse)[] as $p (.; getpath($p) |= empty);
def del(f): delpaths([path(f)]);
def keys_unsorted: _jq_keys;
def keys: _jq_keys | sort;
def startswith($s): if type == "string" and ($s | type) == "string"
  then .[:($s | length)] == $s else error("startswith() requires string inputs") end;
def endswith($s): if type == "string" and ($s | type) == "string"
  then (length - ($s | length)) as $n | $n >= 0 and .[$n:] == $s
  else error("endswith() requires string inputs") end;
