#pragma once
// The warehouse interface, split by role: krow's state (StateStore), what the engine makes of
// typed columns (TableSchemas), how rows reach it (BatchWriter), what it makes of a table's
// physical design (TableDesigns) and what `krow audit` counts in its tables (TableAudit). An
// adapter implements all of them in one object that owns everything touching its engine: DDL
// and type mapping (of the row contract in contract/ and of typed columns), the batch write,
// krow's state and the lock that keeps two syncs of one sync ID apart. Nothing outside
// warehouse/ writes SQL, and the rest of krow never knows which engine it talks to: code that
// needs one role takes that role. What an engine can do is its Engine's capabilities
// (warehouse/engine.hpp).
//
// Thread: one thread at a time per object.

#include "warehouse/batch_writer.hpp"
#include "warehouse/state_store.hpp"
#include "warehouse/table_audit.hpp"
#include "warehouse/table_designs.hpp"
#include "warehouse/table_schemas.hpp"
#include "warehouse/warehouse_config.hpp"

namespace krow {

// write: the sync's lock is held for the object's life (one process writes the sync).
// worker: one of several workers sharing a continuous sync (docs/workers.md), on an engine
// whose capabilities say concurrent_writers: the lock is held only between lock_sync() and
// unlock_sync() (table preparation); a sync opened for writing is kept out meanwhile, and keeps
// workers out while it runs. Only the epoch fence keeps workers' commits apart.
enum class OpenMode { read_only, write, worker };

class Warehouse : public StateStore,
                  public TableSchemas,
                  public BatchWriter,
                  public TableDesigns,
                  public TableAudit {};

}  // namespace krow
