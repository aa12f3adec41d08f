#pragma once
// READ_KAFKA(...) in a plain SELECT: a preview of a topic (docs/pipes.md "Previewing a topic"). The rows come from
// the same Kafka source and raw decoder as a pipe's; nothing is committed to the consumer group.
#include "common/status.h"
#include "storage/database.h"

namespace sluice {

// Registers the streaming table function behind READ_KAFKA in the database (once, at startup).
Status RegisterReadKafka(storage::Connection& con);
// Defines read_kafka(12 arguments) on a session's connection: a macro that types the columns.
Status DefineReadKafkaMacro(storage::Connection& con);

}  // namespace sluice
