import Foundation
import SQLKit

/// On PostgreSQL, the indexes a migration's missing steps add to tables already there are built
/// before its transaction, one by one, with `CREATE INDEX CONCURRENTLY`: the table takes writes
/// while each builds (a plain `CREATE INDEX` in the transaction holds them for the whole build,
/// minutes on a large table). The step's own statement then finds the index (`IF NOT EXISTS`).
///
/// A concurrent build that fails or is interrupted leaves an invalid index, which PostgreSQL
/// keeps up on writes but never reads: one not being built now is dropped and built again, at
/// this start or the next, so no step is recorded over an index that does not work.
extension SQLStore {
    /// An index statement in its concurrent form, with the index's name and table; nil for any
    /// other statement, or one without `IF NOT EXISTS` (which the step's transaction would then
    /// fail on).
    static func concurrentIndex(_ statement: String) -> (name: String, table: String, statement: String)? {
        let action = MigrationPlan.action(of: statement)
        guard let name = action.index, let table = action.table, statement.uppercased().contains("IF NOT EXISTS"),
            let index = statement.range(of: "INDEX ", options: .caseInsensitive)
        else { return nil }
        return (name, table, statement.replacingCharacters(in: index, with: "INDEX CONCURRENTLY "))
    }

    /// Builds concurrently the indexes the missing steps of `scope` add to tables already there,
    /// after rebuilding any of this build's indexes left invalid; returns the names built.
    func buildIndexesConcurrently(scope: MigrationScope) async throws -> [String] {
        guard dialect == .postgresql else { return [] }
        let applied = try await appliedVersions()
        guard !applied.isEmpty else { return [] }
        let known = SchemaMigrations.steps(for: .postgresql).flatMap(\.statements).compactMap(Self.concurrentIndex)
        var built: [String] = []
        // Left invalid by a build that failed: dropped, then built again (below if its step is
        // missing, here if it was recorded).
        for name in try await invalidIndexes() {
            guard let index = known.first(where: { $0.name == name }) else { continue }
            try await backend.write { db in try await db.raw("DROP INDEX CONCURRENTLY IF EXISTS \(ident: name)").run() }
            if try await build(index) { built.append(name) }
        }
        let tables = try await backend.read { db in try await Self.tableRows(db, dialect: .postgresql) }
        for step in SchemaMigrations.steps(for: .postgresql) where !applied.contains(step.version) {
            if scope == .expandOnly, MigrationPlan.isContract(step.statements) { continue }
            for index in step.statements.compactMap(Self.concurrentIndex) where tables[index.table] != nil && !built.contains(index.name) {
                if try await build(index) { built.append(index.name) }
            }
        }
        return built
    }

    /// Builds one index concurrently; false when it failed (a unique index over duplicates, a
    /// cancelled build): what it left is dropped, and the step builds it in the migration's
    /// transaction, where the error is reported.
    private func build(_ index: (name: String, table: String, statement: String)) async throws -> Bool {
        do {
            try await backend.write { db in try await db.raw("\(unsafeRaw: index.statement)").run() }
            return true
        } catch {
            if try await invalidIndexes().contains(index.name) {
                try await backend.write { db in try await db.raw("DROP INDEX CONCURRENTLY IF EXISTS \(ident: index.name)").run() }
            }
            return false
        }
    }

    /// The invalid indexes of the schema that no one is building now.
    func invalidIndexes() async throws -> Set<String> {
        try await backend.read { db in
            Set(
                try await db.raw(
                    """
                    SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                    WHERE NOT i.indisvalid AND c.relnamespace = current_schema()::regnamespace
                    AND i.indexrelid NOT IN (SELECT index_relid FROM pg_stat_progress_create_index)
                    """
                ).all().map { try $0.string("name") })
        }
    }
}
