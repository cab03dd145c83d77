import Foundation
import SQLKit

extension SQLStore {
    /// Checks, before a server serves, that the database can hold this store's work, and
    /// returns what an operator should hear of as warnings.
    ///
    /// PostgreSQL directly and PgBouncer in session or transaction pooling mode work: the store
    /// keeps no state in a session between transactions (no `SET` but `SET LOCAL`, advisory locks
    /// only for a transaction, no `LISTEN`, no named prepared statements, no startup parameter).
    /// PgBouncer in statement pooling mode cannot hold a transaction and is refused here with
    /// ``StoreError/Code/unsupportedDatabase``: every intake is one.
    public func checkDatabase() async throws -> [String] {
        if backend.dialect == .postgresql {
            // PgBouncer in statement pooling mode ends the connection at the first BEGIN; the
            // backend reports that as ``StoreError/Code/unsupportedDatabase``.
            try await backend.transaction { db in
                _ = try await db.raw("SELECT 1 AS one").first()
                _ = try await db.raw("SELECT 2 AS two").first()
            }
        }
        var warnings: [String] = []
        let applied = try await appliedVersions()
        let newer = try await backend.read { db in try await SchemaMigrations.newerSteps(db, applied: applied) }
        if !newer.isEmpty {
            warnings.append(
                "the database has steps \(newer) of a newer version, which only add: this version runs beside them during a rolling "
                    + "deploy; upgrade it")
        }
        if backend.dialect == .postgresql, try await !sessionDefaultsSet() {
            warnings.append(
                "PostgreSQL's JIT is on for this database and this role may not turn it off; as the database's owner run: "
                    + "ALTER DATABASE <name> SET jit = off (a figure read may otherwise spend a second compiling)")
        }
        return warnings
    }

    /// Whether the database has ``SchemaMigrations/databaseDefaults``, or this role may set them
    /// (the next migration then does).
    func sessionDefaultsSet() async throws -> Bool {
        try await backend.read { db in
            let row = try await db.raw(
                """
                SELECT EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
                               WHERE d.datname = current_database() AND s.setrole = 0 AND 'jit=off' = ANY (s.setconfig))
                    OR pg_get_userbyid((SELECT datdba FROM pg_database WHERE datname = current_database())) = current_user
                    OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS settled
                """
            ).first()
            return try row?.decode(column: "settled", as: Bool.self) ?? false
        }
    }
}
