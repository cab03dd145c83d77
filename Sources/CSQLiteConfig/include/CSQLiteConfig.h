#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// Turns on SQLite's query planner stability guarantee (SQLITE_DBCONFIG_ENABLE_QPSG) for the
/// connection `db` (a `sqlite3 *` of the SQLite that SQLiteNIO vendors). Returns 0 once it is on,
/// else SQLite's error code (or 1 when SQLite answered OK but the flag is still off).
///
/// `sqlite3_db_config` takes variable arguments, which Swift cannot pass; this is the one call.
int storekeeper_sqlite_enable_qpsg(void *db);

/// How large a statement journal (the undo record of one statement inside a transaction: a
/// multi-row insert of notification bodies) SQLite keeps in memory before it spills it to a
/// temporary file. SQLite's default, 64 KiB, sent about 44 KB per notification to `/var/tmp`.
#define STOREKEEPER_SQLITE_STATEMENT_JOURNAL_BYTES (8 * 1024 * 1024)

/// SQLite's answer to setting SQLITE_CONFIG_STMTJRNL_SPILL to
/// STOREKEEPER_SQLITE_STATEMENT_JOURNAL_BYTES as the program loaded: 0 when it took effect.
int storekeeper_sqlite_statement_journal_status(void);

#endif
