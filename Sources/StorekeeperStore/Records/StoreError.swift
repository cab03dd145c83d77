import Foundation

/// A failure of the storage layer: the database refused, was unreachable, or a write broke an
/// invariant the store guards (an alias already owned by another customer).
///
/// Messages never contain bound values such as secrets; they name the operation and the cause.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: Code
    /// A human reason.
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The kinds of storage failure.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The database location could not be understood (a bad URL or path).
        public static let invalidLocation = Code(rawValue: "invalid_location")
        /// The database could not be opened or reached.
        public static let unavailable = Code(rawValue: "unavailable")
        /// An alias (an original transaction id, an `appAccountToken`) belongs to another customer.
        public static let aliasConflict = Code(rawValue: "alias_conflict")
        /// A write would keep more than a limit allows (a customer's attributes).
        public static let limitReached = Code(rawValue: "limit_reached")
        /// A stored row could not be read back.
        public static let corruptRow = Code(rawValue: "corrupt_row")
        /// Something changed since the caller read it (an offerings version saved meanwhile).
        public static let versionConflict = Code(rawValue: "version_conflict")
        /// The schema is newer than this build knows.
        public static let schemaTooNew = Code(rawValue: "schema_too_new")
        /// The database is set up in a way the store cannot work with (a pooler that cannot hold
        /// a transaction).
        public static let unsupportedDatabase = Code(rawValue: "unsupported_database")
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
