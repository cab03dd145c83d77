import Foundation

/// One version of an app's offerings document (the JSON the server validated).
public struct OfferingVersion: Sendable, Hashable {
    public var appId: String
    /// 1, 2, … per app; the newest is in force.
    public var version: Int
    public var document: String
    /// Who saved it (`admin-key:<fingerprint>`, `dashboard:<email>`).
    public var actor: String
    /// Why, when given (`restored version 3`).
    public var note: String?
    public var createdAt: Date

    public init(appId: String, version: Int, document: String, actor: String, note: String? = nil, createdAt: Date) {
        self.appId = appId
        self.version = version
        self.document = document
        self.actor = actor
        self.note = note
        self.createdAt = createdAt
    }
}

/// A customer's first exposure to an experiment, and the variant they got.
public struct ExperimentEnrolment: Sendable, Hashable {
    public var appId: String
    public var experimentId: String
    public var customerId: String
    public var variant: String
    public var enrolledAt: Date

    public init(appId: String, experimentId: String, customerId: String, variant: String, enrolledAt: Date) {
        self.appId = appId
        self.experimentId = experimentId
        self.customerId = customerId
        self.variant = variant
        self.enrolledAt = enrolledAt
    }
}

/// Offerings versions and experiment enrolments (written through changesets).
public protocol OfferingStore: Sendable {
    /// A version of the app's offerings, the newest when `version` is `nil`.
    func offeringVersion(appId: String, version: Int?) async throws -> OfferingVersion?
    /// The app's versions, newest first, at most `limit`.
    func offeringVersions(appId: String, limit: Int) async throws -> [OfferingVersion]
    /// A customer's enrolment in an experiment, if any.
    func enrolment(appId: String, experimentId: String, customerId: String) async throws -> ExperimentEnrolment?
    /// Every enrolment in an experiment, oldest first.
    func enrolments(appId: String, experimentId: String) async throws -> [ExperimentEnrolment]
}
