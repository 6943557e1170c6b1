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
# Bottom-up, objects rebuilt in key order.
def walk(f): if type == "object" then with_entries(.value |= walk(f)) | to_entries | sort_by(.key) | from_entries | f
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
