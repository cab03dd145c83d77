import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    package struct OfferingsResponse: ResponseEncodable {
        package var version: Int
        package var actor: String?
        package var note: String?
        package var createdAt: Date?
        package var document: OfferingsDocument
    }

    package struct OfferingsVersionsResponse: ResponseEncodable {
        package struct Item: Encodable {
            package var version: Int
            package var actor: String
            package var note: String?
            package var createdAt: Date
        }
        package var versions: [Item]
    }

    package struct SaveOfferingsRequest: Decodable {
        /// The version the change was made over (409 when another change landed meanwhile).
        package var expectedVersion: Int?
        package var note: String?
        package var document: OfferingsDocument
    }

    package struct StopExperimentRequest: Decodable {
        /// The variant to roll out as the placement's offering.
        package var winner: String
    }

    package func addOfferingRoutes(admin: RouterGroup<APIRequestContext>, customers: RouterGroup<APIRequestContext>) {
        admin.get("offerings", use: currentOfferings)
            .put("offerings", use: saveOfferings)
            .get("offerings/versions", use: offeringVersions)
            .post("offerings/versions/:version/restore", use: restoreOfferings)
            .post("experiments/:experimentId/stop", use: stopExperiment)
            .get("experiments/:experimentId/results", use: experimentResults)
        customers.get("customers/:customerId/offerings", use: customerOffering)
    }

    /// The newest document (version 0 and an empty document before the first save).
    package func offerings(app: AppRuntime) async throws -> (version: OfferingVersion?, document: OfferingsDocument) {
        guard let stored = try await store.offeringVersion(appId: app.id, version: nil) else { return (nil, OfferingsDocument()) }
        do {
            return (stored, try JSONDecoder.offerings.decode(OfferingsDocument.self, from: Data(stored.document.utf8)))
        } catch {
            throw APIError(.internalServerError, code: .internalError, message: "offerings version \(stored.version) cannot be read")
        }
    }

    /// `GET /v1/apps/{appId}/offerings` (admin).
    package func currentOfferings(_ request: Request, _ context: APIRequestContext) async throws -> OfferingsResponse {
        let app = try context.caller().app
        let (stored, document) = try await offerings(app: app)
        return OfferingsResponse(
            version: stored?.version ?? 0, actor: stored?.actor, note: stored?.note, createdAt: stored?.createdAt, document: document)
    }

    /// `PUT /v1/apps/{appId}/offerings` (admin): validates and saves a new version, audited.
    package func saveOfferings(_ request: Request, _ context: APIRequestContext) async throws -> OfferingsResponse {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        let input = try JSONBody.decode(SaveOfferingsRequest.self, from: try await body(request))
        let current = try await store.offeringVersion(appId: app.id, version: nil)?.version ?? 0
        return try await save(
            input.document, app: app, actor: principal.actor, note: input.note, expectedVersion: input.expectedVersion ?? current,
            action: .saveOfferings)
    }

    /// `GET /v1/apps/{appId}/offerings/versions` (admin): newest first.
    package func offeringVersions(_ request: Request, _ context: APIRequestContext) async throws -> OfferingsVersionsResponse {
        let app = try context.caller().app
        let versions = try await store.offeringVersions(appId: app.id, limit: try Self.limit(request))
        return OfferingsVersionsResponse(
            versions: versions.map { .init(version: $0.version, actor: $0.actor, note: $0.note, createdAt: $0.createdAt) })
    }

    /// `POST /v1/apps/{appId}/offerings/versions/{version}/restore` (admin): saves that version's
    /// document again as the newest.
    package func restoreOfferings(_ request: Request, _ context: APIRequestContext) async throws -> OfferingsResponse {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        guard let number = Int(try context.pathParameter("version")), number > 0 else { throw APIError.badRequest("version must be a number") }
        guard let old = try await store.offeringVersion(appId: app.id, version: number) else { throw APIError.notFound }
        let document = try JSONDecoder.offerings.decode(OfferingsDocument.self, from: Data(old.document.utf8))
        let current = try await store.offeringVersion(appId: app.id, version: nil)?.version ?? 0
        return try await save(
            document, app: app, actor: principal.actor, note: "restored version \(number)", expectedVersion: current, action: .restoreOfferings)
    }

    /// `POST /v1/apps/{appId}/experiments/{id}/stop` (admin): stops the experiment and rolls the
    /// winner's offering out as its placement's default.
    package func stopExperiment(_ request: Request, _ context: APIRequestContext) async throws -> OfferingsResponse {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        let input = try JSONBody.decode(StopExperimentRequest.self, from: try await body(request))
        return try await stopExperiment(id: try context.pathParameter("experimentId"), winner: input.winner, app: app, actor: principal.actor)
    }

    package func stopExperiment(id: String, winner winnerId: String, app: AppRuntime, actor: String) async throws -> OfferingsResponse {
        let (stored, document) = try await offerings(app: app)
        var edited = document
        guard let index = edited.experiments.firstIndex(where: { $0.id == id }) else { throw APIError.notFound }
        guard let winner = edited.experiments[index].variants.first(where: { $0.id == winnerId }) else {
            throw APIError.badRequest("experiment \(id) has no variant \(winnerId)")
        }
        edited.experiments[index].status = .stopped
        edited.experiments[index].winner = winner.id
        edited.experiments[index].stopAt = edited.experiments[index].stopAt.map { min($0, clock()) } ?? clock()
        if let placement = edited.placements.firstIndex(where: { $0.id == edited.experiments[index].placement }) {
            edited.placements[placement].defaultOffering = winner.offering
        }
        return try await save(
            edited, app: app, actor: actor, note: "stopped \(id), rolled out \(winner.id)", expectedVersion: stored?.version ?? 0,
            action: .stopExperiment)
    }

    package func save(
        _ document: OfferingsDocument, app: AppRuntime, actor: String, note: String?, expectedVersion: Int, action: AuditAction
    ) async throws -> OfferingsResponse {
        let catalog = app.catalog.products.isEmpty ? nil : Set(app.catalog.products.map(\.productId))
        let problems = document.problems(catalogProducts: catalog)
        guard problems.isEmpty else { throw APIError(.unprocessableContent, code: .invalidOfferings, message: problems.joined(separator: "; ")) }
        if let note, note.utf8.count > 500 { throw APIError.badRequest("note must be at most 500 bytes") }
        let text = String(decoding: try JSONEncoder.offerings().encode(document), as: UTF8.self)
        guard text.utf8.count <= 512 * 1024 else { throw APIError(.contentTooLarge, code: .payloadTooLarge, message: "offerings above 512 KiB") }
        let now = clock()
        var changeset = Changeset(
            appId: app.id, at: now,
            audit: [
                AuditEntry(
                    appId: app.id, actor: actor, action: action, reason: note, details: ["version": String(expectedVersion + 1)], at: now)
            ])
        changeset.offeringVersion = NewOfferingVersion(document: text, actor: actor, note: note, expectedVersion: expectedVersion)
        do {
            try await store.apply(changeset)
        } catch let error as StoreError where error.code == .versionConflict {
            throw APIError(.conflict, code: .versionConflict, message: error.message)
        }
        return OfferingsResponse(version: expectedVersion + 1, actor: actor, note: note, createdAt: now, document: document)
    }
}

extension JSONDecoder {
    /// Offerings documents: ISO 8601 dates (with or without fractions).
    package static let offerings: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .timestamp
        return decoder
    }()
}

extension JSONEncoder {
    /// Offerings documents as stored (sorted keys; `pretty` for people).
    package static func offerings(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys]
        encoder.dateEncodingStrategy = .timestamp
        return encoder
    }
}
