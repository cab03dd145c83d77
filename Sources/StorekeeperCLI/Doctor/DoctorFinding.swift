import Foundation

/// One thing `storekeeper doctor` found: how bad it is, which app it concerns, a stable code a
/// script can match, what is wrong, and the one thing to do about it.
struct DoctorFinding: Codable, Hashable, Sendable {
    /// How bad a finding is: an error stops a working setup, a warning weakens one, `ok` says a
    /// check passed and `info` says what could not be told.
    enum Severity: String, Codable, Hashable, Sendable, Comparable {
        case error
        case warning
        case info
        case ok

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .info: 2
            case .ok: 3
            }
        }

        static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    var severity: Severity
    /// The app's id, or `nil` for the server as a whole.
    var app: String?
    var code: DoctorCode
    /// What is wrong (or right).
    var message: String
    /// One concrete sentence; `nil` for a passed check.
    var todo: String?

    static func error(_ code: DoctorCode, app: String?, _ message: String, todo: String) -> DoctorFinding {
        DoctorFinding(severity: .error, app: app, code: code, message: message, todo: todo)
    }

    static func warning(_ code: DoctorCode, app: String?, _ message: String, todo: String) -> DoctorFinding {
        DoctorFinding(severity: .warning, app: app, code: code, message: message, todo: todo)
    }

    static func info(_ code: DoctorCode, app: String?, _ message: String, todo: String? = nil) -> DoctorFinding {
        DoctorFinding(severity: .info, app: app, code: code, message: message, todo: todo)
    }

    static func ok(_ code: DoctorCode, app: String?, _ message: String) -> DoctorFinding {
        DoctorFinding(severity: .ok, app: app, code: code, message: message, todo: nil)
    }
}

/// The stable codes of doctor's findings (docs/doctor.md lists each with what to do): an open
/// set, so a report of a newer version still decodes.
struct DoctorCode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    let rawValue: String

    init(rawValue: String) { self.rawValue = rawValue }

    init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    var description: String { rawValue }

    // The configuration.
    static let configurationInvalid = Self(rawValue: "configuration_invalid")
    static let noApps = Self(rawValue: "no_apps")
    static let securityWarning = Self(rawValue: "security_warning")
    static let duplicateBundleId = Self(rawValue: "duplicate_bundle_id")
    static let productionWithoutAppAppleId = Self(rawValue: "production_without_app_apple_id")

    // Files.
    static let fileReadableByOthers = Self(rawValue: "file_readable_by_others")
    static let fileOwnedByOtherUser = Self(rawValue: "file_owned_by_other_user")
    static let dataDirectoryNotWritable = Self(rawValue: "data_directory_not_writable")

    // The App Store Server API key.
    static let noAPICredentials = Self(rawValue: "no_api_credentials")
    static let keyFileMissing = Self(rawValue: "key_file_missing")
    static let keyFileUnreadable = Self(rawValue: "key_file_unreadable")
    static let keyNotAKey = Self(rawValue: "key_not_a_key")
    static let keyWrongCurve = Self(rawValue: "key_wrong_curve")
    static let keyValid = Self(rawValue: "key_valid")
    static let environmentUnknown = Self(rawValue: "environment_unknown")
    static let apiKeyRejected = Self(rawValue: "api_key_rejected")
    static let apiKeyAccepted = Self(rawValue: "api_key_accepted")
    static let appleAPIError = Self(rawValue: "apple_api_error")
    static let appleUnreachable = Self(rawValue: "apple_unreachable")

    // The test notification.
    static let notificationDelivered = Self(rawValue: "notification_delivered")
    static let notificationNotDelivered = Self(rawValue: "notification_not_delivered")
    static let notificationStatusPending = Self(rawValue: "notification_status_pending")
    static let testNotificationUnverifiable = Self(rawValue: "test_notification_unverifiable")
    static let bundleIdMismatch = Self(rawValue: "bundle_id_mismatch")
    static let appAppleIdMismatch = Self(rawValue: "app_apple_id_mismatch")
    static let environmentMismatch = Self(rawValue: "environment_mismatch")
    static let identifiersMatch = Self(rawValue: "identifiers_match")

    // The running server.
    static let serverReceivedTestNotification = Self(rawValue: "server_received_test_notification")
    static let notificationDeliveredElsewhere = Self(rawValue: "notification_delivered_elsewhere")
    static let serverUnreachable = Self(rawValue: "server_unreachable")
    static let serverKeyRejected = Self(rawValue: "server_key_rejected")
    static let serverNoAPIKey = Self(rawValue: "server_no_api_key")

    // Products.
    static let productUnknown = Self(rawValue: "product_unknown")
    static let productNotSeen = Self(rawValue: "product_not_seen")
    static let productsUnverifiable = Self(rawValue: "products_unverifiable")
    static let appleChecksSkipped = Self(rawValue: "apple_checks_skipped")
    static let productsKnown = Self(rawValue: "products_known")

    // Clocks.
    static let clockSkew = Self(rawValue: "clock_skew")

    // TLS.
    static let tlsFileMissing = Self(rawValue: "tls_file_missing")
    static let tlsCertificateUnreadable = Self(rawValue: "tls_certificate_unreadable")
    static let tlsKeyUnreadable = Self(rawValue: "tls_key_unreadable")
    static let tlsKeyMismatch = Self(rawValue: "tls_key_mismatch")
    static let tlsCertificateExpired = Self(rawValue: "tls_certificate_expired")
    static let tlsCertificateNotYetValid = Self(rawValue: "tls_certificate_not_yet_valid")
    static let tlsCertificateExpiresSoon = Self(rawValue: "tls_certificate_expires_soon")
    static let tlsChainOrder = Self(rawValue: "tls_chain_order")
    static let tlsSelfSigned = Self(rawValue: "tls_self_signed")
    static let tlsValid = Self(rawValue: "tls_valid")
    static let plainHTTP = Self(rawValue: "plain_http")
}
