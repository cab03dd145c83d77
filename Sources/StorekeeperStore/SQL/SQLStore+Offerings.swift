import Foundation
import SQLKit

extension SQLStore {
    static func saveOfferingVersion(_ version: NewOfferingVersion, appId: String, at now: Int64, _ db: any SQLDatabase) async throws {
        let row = try await db.raw("SELECT MAX(version) AS version FROM offering_versions WHERE app_id = \(bind: appId)").first()
        let current = try row?.decode(column: "version", as: Int?.self) ?? 0
        guard current == version.expectedVersion else {
            throw StoreError(
                code: .versionConflict, message: "the offerings are at version \(current), not \(version.expectedVersion): read them again")
        }
        let inserted = try await db.raw(
            """
            INSERT INTO offering_versions (app_id, version, document, actor, note, created_at)
            VALUES (\(bind: appId), \(bind: current + 1), \(bind: version.document), \(bind: version.actor), \(bind: version.note), \(bind: now))
            ON CONFLICT (app_id, version) DO NOTHING RETURNING version
            """
        ).first()
        guard inserted != nil else {
            throw StoreError(code: .versionConflict, message: "another change saved version \(current + 1) meanwhile: read the offerings again")
        }
    }

    public func offeringVersion(appId: String, version: Int?) async throws -> OfferingVersion? {
        try await backend.read { db in
            let row: (any SQLRow)?
            if let version {
                row = try await db.raw("SELECT * FROM offering_versions WHERE app_id = \(bind: appId) AND version = \(bind: version)").first()
            } else {
                row = try await db.raw("SELECT * FROM offering_versions WHERE app_id = \(bind: appId) ORDER BY version DESC LIMIT 1").first()
            }
            return try row.map(Self.offeringVersion)
        }
    }

    public func offeringVersions(appId: String, limit: Int) async throws -> [OfferingVersion] {
        try await backend.read { db in
            try await db.raw(
                "SELECT * FROM offering_versions WHERE app_id = \(bind: appId) ORDER BY version DESC LIMIT \(bind: max(1, min(limit, 1000)))"
            ).all().map(Self.offeringVersion)
        }
    }

    public func enrolment(appId: String, experimentId: String, customerId: String) async throws -> ExperimentEnrolment? {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM experiment_enrolments WHERE app_id = \(bind: appId) AND experiment_id = \(bind: experimentId)
                AND customer_id = \(bind: customerId)
                """
            ).first().map(Self.enrolment)
        }
    }

    public func enrolments(appId: String, experimentId: String) async throws -> [ExperimentEnrolment] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT * FROM experiment_enrolments WHERE app_id = \(bind: appId) AND experiment_id = \(bind: experimentId)
                ORDER BY enrolled_at, customer_id
                """
            ).all().map(Self.enrolment)
        }
    }

    static func offeringVersion(_ row: any SQLRow) throws -> OfferingVersion {
        OfferingVersion(
            appId: try row.decode(column: "app_id", as: String.self), version: try row.decode(column: "version", as: Int.self),
            document: try row.decode(column: "document", as: String.self), actor: try row.decode(column: "actor", as: String.self),
            note: try row.decode(column: "note", as: String?.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)))
    }

    static func enrolment(_ row: any SQLRow) throws -> ExperimentEnrolment {
        ExperimentEnrolment(
            appId: try row.decode(column: "app_id", as: String.self), experimentId: try row.decode(column: "experiment_id", as: String.self),
            customerId: try row.decode(column: "customer_id", as: String.self), variant: try row.decode(column: "variant", as: String.self),
            enrolledAt: Date(millisecondsSince1970: try row.decode(column: "enrolled_at", as: Int64.self)))
    }
}
