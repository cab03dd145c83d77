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

/// The name of a VFS over SQLite's default one that writes a write-ahead log a transaction at
/// a time: the log's frames (each a 24-byte header and a page, two writes in SQLite) gather in
/// memory and reach the file in two writes as the transaction's last frame is written (up to
/// its header, then its page), before SQLite publishes the transaction, and before any read,
/// sync, truncation or size of the log.
/// Only the log is gathered; the database file is written as SQLite writes it.
#define STOREKEEPER_SQLITE_LOG_VFS "storekeeper-log"

/// The name of the same VFS without the gathering: every file, the log included, is written as
/// SQLite writes it, except that a write larger than STOREKEEPER_SQLITE_LOG_BUFFER_BYTES reaches
/// the file in pieces of that size (a statement journal spills in 8 MiB chunks, which SQLite's
/// unix VFS would write short). What the server's writing connection uses.
#define STOREKEEPER_SQLITE_PIECES_VFS "storekeeper-pieces"

/// How many bytes of log the VFS gathers at most before it writes them out: the most SQLite's
/// unix VFS writes in one call (it keeps the low 17 bits of a write's size; a larger write
/// would come back short, as if the disk were full).
#define STOREKEEPER_SQLITE_LOG_BUFFER_BYTES (128 * 1024 - 1)

/// 0 once both VFSes are registered (as the program loads), else SQLite's error code.
int storekeeper_sqlite_log_vfs_status(void);

/// For the connection `db` (a `sqlite3 *`) opened with the VFS, in WAL mode: the writes to its
/// log SQLite asked for, and the writes the VFS made to the file, since the log was opened.
/// Returns 0, else SQLite's error code (or 1 when the connection's log is not the VFS's).
int storekeeper_sqlite_log_writes(void *db, long long *requested, long long *made);

#endif
