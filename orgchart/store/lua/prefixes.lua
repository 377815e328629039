-- Every graph script is sent the key-name pieces of ``keys.graph_prefixes`` in ARGV[1..4] (all a script
-- that only walks needs), the event's stream cap, actor and link in ARGV[5..7]; its own arguments
-- start at ARGV[8].
local E, RS, L, SS = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
