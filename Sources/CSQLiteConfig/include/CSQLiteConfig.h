#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// Turns on SQLite's query planner stability guarantee (SQLITE_DBCONFIG_ENABLE_QPSG) for the
/// connection `db` (a `sqlite3 *` of the SQLite that SQLiteNIO vendors). Returns 0 once it is on,
/// else SQLite's error code (or 1 when SQLite answered OK but the flag is still off).
///
/// `sqlite3_db_config` takes variable arguments, which Swift cannot pass; this is the one call.
int storekeeper_sqlite_enable_qpsg(void *db);

#endif
