import Foundation
import SQLKit

extension SQLStore {
    @discardableResult
    public func openProblem(_ problem: Problem, event: EventRecord?) async throws -> Bool {
        let now = problem.openedAt.millisecondsSince1970
        return try await backend.transaction { db in
            let counted = try await db.raw(
                """
                UPDATE problems SET occurrences = occurrences + 1
                WHERE app_id = \(bind: problem.appId) AND cause_key = \(bind: problem.causeKey) AND status = 'open' RETURNING id
                """
            ).first()
            guard counted == nil else { return false }
            try await db.raw(
                """
                INSERT INTO problems (app_id, kind, cause_key, status, customer_id, summary, evidence, amount, currency, occurrences,
                opened_at, resolved_at, resolved_by)
                VALUES (\(bind: problem.appId), \(bind: problem.kind), \(bind: problem.causeKey), \(bind: problem.status.rawValue),
                \(bind: problem.customerId), \(bind: problem.summary), \(bind: Self.json(problem.evidence)),
                \(bind: problem.amount.map { "\($0)" }), \(bind: problem.currency), 1, \(bind: now),
                \(bind: problem.resolvedAt?.millisecondsSince1970), \(bind: problem.resolvedBy))
                """
            ).run()
            if let event { _ = try await Self.insertEvent(event, appId: problem.appId, now: now, db) }
            return true
        }
    }

    @discardableResult
    public func resolveProblem(
        appId: String, causeKey: String, at: Date, by: String, event: @escaping @Sendable (Problem) -> EventRecord?
    ) async throws -> Problem? {
        try await resolve(appId: appId, at: at, by: by, event: event, condition: "cause_key = \(bind: causeKey)")
    }

    public func resolveProblem(
        appId: String, id: Int64, at: Date, by: String, event: @escaping @Sendable (Problem) -> EventRecord?
    ) async throws -> Problem? {
        try await resolve(appId: appId, at: at, by: by, event: event, condition: "id = \(bind: id)")
    }

    private func resolve(
        appId: String, at: Date, by: String, event: @escaping @Sendable (Problem) -> EventRecord?, condition: SQLQueryString
    ) async throws -> Problem? {
        let now = at.millisecondsSince1970
        // Most calls find nothing open (a delivery or a job that succeeded as usual): a read
        // answers them without taking the single writer.
        let open = try await backend.read { db in
            try await db.raw("SELECT 1 AS one FROM problems WHERE app_id = \(bind: appId) AND status = 'open' AND " + condition + " LIMIT 1")
                .first() != nil
        }
        guard open else { return nil }
        return try await backend.transaction { db in
            guard
                let row = try await db.raw(
                    """
                    UPDATE problems SET status = 'resolved', resolved_at = \(bind: now), resolved_by = \(bind: by)
                    WHERE app_id = \(bind: appId) AND status = 'open' AND
                    """ + " " + condition + " RETURNING *"
                ).first()
            else { return nil }
            let problem = try Self.problem(row)
            if let record = event(problem) { _ = try await Self.insertEvent(record, appId: appId, now: now, db) }
            return problem
        }
    }

    public func problems(appId: String, status: ProblemStatus?, limit: Int) async throws -> [Problem] {
        try await backend.read { db in
            var query: SQLQueryString = "SELECT * FROM problems WHERE app_id = \(bind: appId)"
            if let status { query += " AND status = \(bind: status.rawValue)" }
            query += " ORDER BY id DESC LIMIT \(bind: max(0, min(limit, 1000)))"
            return try await db.raw(query).all().map(Self.problem)
        }
    }

    public func problems(appId: String, customerId: String, status: ProblemStatus, limit: Int) async throws -> [Problem] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM problems WHERE app_id = \(bind: appId) AND status = \(bind: status.rawValue) AND customer_id = \(bind: customerId)
                ORDER BY id DESC LIMIT \(bind: max(0, min(limit, 1000)))
                """
            ).all().map(Self.problem)
        }
    }

    static func json(_ value: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func problem(_ row: any SQLRow) throws -> Problem {
        let statusText = try row.string("status")
        return Problem(
            id: try row.int64("id"), appId: try row.string("app_id"), kind: try row.string("kind"), causeKey: try row.string("cause_key"),
            status: ProblemStatus(rawValue: statusText) ?? .open, customerId: try row.optionalString("customer_id"),
            summary: try row.string("summary"),
            evidence: (try? JSONDecoder().decode([String: String].self, from: Data(try row.string("evidence").utf8))) ?? [:],
            amount: try row.optionalString("amount").flatMap { Decimal(string: $0) }, currency: try row.optionalString("currency"),
            occurrences: try row.int("occurrences"), openedAt: try row.date("opened_at"),
            resolvedAt: try row.decode(column: "resolved_at", as: Int64?.self).map { Date(millisecondsSince1970: $0) },
            resolvedBy: try row.optionalString("resolved_by"))
    }
}
