import Foundation
import SQLKit

extension SQLStore {
    public func knownChains(appId: String) async throws -> [String] {
        try await backend.scan { db in
            try await db.raw(
                """
                SELECT DISTINCT original_transaction_id FROM ledger
                WHERE app_id = \(bind: appId) AND original_transaction_id IS NOT NULL ORDER BY original_transaction_id
                """
            ).all().map { try $0.string("original_transaction_id") }
        }
    }

    public func knownChains(appId: String, recordedSince date: Date) async throws -> [String] {
        try await backend.scan { db in
            try await db.raw(
                """
                SELECT DISTINCT original_transaction_id FROM ledger
                WHERE app_id = \(bind: appId) AND original_transaction_id IS NOT NULL AND recorded_at >= \(bind: date.millisecondsSince1970)
                ORDER BY original_transaction_id
                """
            ).all().map { try $0.string("original_transaction_id") }
        }
    }

    public func hasChains(appId: String, recordedSince date: Date) async throws -> Bool {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT 1 AS one FROM ledger WHERE app_id = \(bind: appId) AND recorded_at >= \(bind: date.millisecondsSince1970)
                AND original_transaction_id IS NOT NULL LIMIT 1
                """
            ).first() != nil
        }
    }

    public func latestJob(appId: String, kind: String, state: JobState) async throws -> JobRecord? {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM jobs WHERE app_id = \(bind: appId) AND kind = \(bind: kind) AND state = \(bind: state.rawValue)
                ORDER BY run_at DESC, id DESC LIMIT 1
                """
            ).first().map(Self.job)
        }
    }

    public func pendingJobKeys(appId: String, kind: String) async throws -> Set<String> {
        try await backend.scan { db in
            Set(
                try await db.raw(
                    """
                    SELECT idempotency_key FROM jobs
                    WHERE app_id = \(bind: appId) AND kind = \(bind: kind) AND state = \(bind: JobState.pending.rawValue)
                    """
                ).all().map { try $0.string("idempotency_key") })
        }
    }

    public func jobs(appId: String, kind: String, limit: Int) async throws -> [JobRecord] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM jobs WHERE app_id = \(bind: appId) AND kind = \(bind: kind)
                ORDER BY run_at, id LIMIT \(bind: max(1, limit))
                """
            ).all().map(Self.job)
        }
    }

    public func nextWorkDate() async throws -> Date? {
        try await backend.read { db in
            let row = try await db.raw(
                """
                SELECT (SELECT MIN(run_at) FROM jobs WHERE state = \(bind: JobState.pending.rawValue)) AS job,
                (SELECT MIN(next_attempt_at) FROM event_deliveries WHERE state = \(bind: DeliveryState.pending.rawValue)) AS delivery
                """
            ).first()
            let dates = [try row?.optionalInt64("job"), try row?.optionalInt64("delivery")].compactMap { $0 ?? nil }
            return dates.min().map(Date.init(millisecondsSince1970:))
        }
    }
}
