#pragma once
// What a stored row must hold, by the row contract (docs/row-contract.md), and which of its
// columns do not: the message-level comparison of `krow audit --deep / --sample`.
//
// Pure: no warehouse, no Kafka.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contract/row_contract.hpp"
#include "rows/row_batch.hpp"

namespace krow::audit {

using Cells = std::array<std::optional<std::string>, contract::kColumnCount>;

// The contract columns of `row` (of topic `topic_id`, its text in `arena`) as
// TableAudit::stored_rows gives them: integers in decimal, the timestamp in milliseconds,
// booleans `true`/`false`, JSON as text.
Cells expected_cells(const Row& row, const TopicId& topic_id, const std::string& arena);

// The names of the columns of `stored` that differ from `expected`. JSON columns compare as
// JSON (key order, spacing and a number's spelling aside, as engines store JSON in their own
// form). An engine that could not store a value notes it in decode_error after what decoding
// said (RowBatch::replace_unstorable, typed columns' misfits): then the columns it may have
// stored another way (value, value_format, headers) are not compared.
std::vector<std::string_view> differing_columns(const Cells& expected, const Cells& stored);

// True when `a` and `b` are the same JSON value: objects compare by key (the last of a
// repeated key counts, as engines keep it), numbers by value. Text that does not parse as JSON
// compares as text.
bool same_json(std::string_view a, std::string_view b);

}  // namespace krow::audit
