import Foundation

/// The result of Look Up Order ID.
public struct OrderLookupResponse: Codable, Hashable, Sendable {
    /// Whether the order ID is valid.
    public var status: OrderLookupStatus?

    /// The order's transactions, each as a JWS.
    public var signedTransactions: [String]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(status: OrderLookupStatus? = nil, signedTransactions: [String]? = nil) {
        self.status = status
        self.signedTransactions = signedTransactions
    }
}

/// The response of Get Transaction Info.
public struct TransactionInfoResponse: Codable, Hashable, Sendable {
    /// The transaction, as a JWS (`JWSTransactionDecodedPayload`).
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedTransactionInfo: String? = nil) {
        self.signedTransactionInfo = signedTransactionInfo
    }
}

/// The response of Get App Transaction Info.
public struct AppTransactionInfoResponse: Codable, Hashable, Sendable {
    /// The app transaction, as a JWS (`AppTransaction`).
    public var signedAppTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedAppTransactionInfo: String? = nil) {
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}

/// The test notification and its delivery attempts (Get Test Notification Status).
public struct CheckTestNotificationResponse: Codable, Hashable, Sendable {
    /// The notification, as a JWS (`ResponseBodyV2DecodedPayload`).
    public var signedPayload: String?

    /// Each attempt to deliver the notification, oldest first.
    public var sendAttempts: [SendAttemptItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedPayload: String? = nil, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

/// The response of Request a Test Notification.
public struct SendTestNotificationResponse: Codable, Hashable, Sendable {
    /// The token to pass to Get Test Notification Status.
    public var testNotificationToken: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(testNotificationToken: String? = nil) {
        self.testNotificationToken = testNotificationToken
    }
}

/// One attempt to deliver a notification to your server.
public struct SendAttemptItem: Codable, Hashable, Sendable {
    /// When Apple attempted delivery.
    @AppStoreDate public var attemptDate: Date?

    /// The outcome of the attempt.
    public var sendAttemptResult: SendAttemptResult?

    /// Creates a value from its fields; optional fields default to absent.
    public init(attemptDate: Date? = nil, sendAttemptResult: SendAttemptResult? = nil) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}

/// A page of notification history (Get Notification History).
public struct NotificationHistoryResponse: Codable, Hashable, Sendable {
    /// The token to pass as `paginationToken` to fetch the next page.
    public var paginationToken: String?

    /// Whether more pages are available.
    public var hasMore: Bool?

    /// The notifications on this page.
    public var notificationHistory: [NotificationHistoryResponseItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        paginationToken: String? = nil,
        hasMore: Bool? = nil,
        notificationHistory: [NotificationHistoryResponseItem]? = nil
    ) {
        self.paginationToken = paginationToken
        self.hasMore = hasMore
        self.notificationHistory = notificationHistory
    }
}

/// One past notification and its delivery attempts.
public struct NotificationHistoryResponseItem: Codable, Hashable, Sendable {
    /// The notification, as a JWS (`ResponseBodyV2DecodedPayload`).
    public var signedPayload: String?

    /// Each attempt to deliver the notification, oldest first.
    public var sendAttempts: [SendAttemptItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedPayload: String? = nil, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

/// The response of Extend Subscription Renewal Dates for All Active Subscribers.
public struct MassExtendRenewalDateResponse: Codable, Hashable, Sendable {
    /// The identifier of the request, as you supplied it.
    public var requestIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(requestIdentifier: String? = nil) {
        self.requestIdentifier = requestIdentifier
    }
}

/// A page of a customer's refunded transactions (Get Refund History, v2).
public struct RefundHistoryResponse: Codable, Hashable, Sendable {
    /// Transactions, each as a JWS (`JWSTransactionDecodedPayload`).
    public var signedTransactions: [String]?

    /// The token to pass as `revision` to fetch the next page.
    public var revision: String?

    /// Whether more pages are available.
    public var hasMore: Bool?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedTransactions: [String]? = nil, revision: String? = nil, hasMore: Bool? = nil) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
    }
}

/// The latest transactions of the subscriptions in one subscription group (in a `StatusResponse`).
public struct SubscriptionGroupIdentifierItem: Codable, Hashable, Sendable {
    /// The identifier of the subscription group the subscription belongs to.
    public var subscriptionGroupIdentifier: String?

    /// The most recent transaction of each subscription in the group.
    public var lastTransactions: [LastTransactionsItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(subscriptionGroupIdentifier: String? = nil, lastTransactions: [LastTransactionsItem]? = nil) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.lastTransactions = lastTransactions
    }
}

/// The body of an App Store Server API error response: `{"errorCode": …, "errorMessage": …}`.
public struct ErrorPayload: Codable, Hashable, Sendable {
    /// The error code; unknown codes keep their number.
    public var errorCode: APIErrorCode?

    /// Apple's description of the error.
    public var errorMessage: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(errorCode: APIErrorCode? = nil, errorMessage: String? = nil) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }
}
