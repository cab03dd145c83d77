/// The `errorCode` of an App Store Server API error response.
///
/// The first three digits are the HTTP status (4040010 comes with HTTP 404).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct APIErrorCode: AppStoreOpenValue {
    public let rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// 4000000: The request was invalid.
    public static let generalBadRequest = APIErrorCode(rawValue: 4000000)

    /// 4000002: The app identifier is invalid.
    public static let invalidAppIdentifier = APIErrorCode(rawValue: 4000002)

    /// 4000005: The `revision` is invalid.
    public static let invalidRequestRevision = APIErrorCode(rawValue: 4000005)

    /// 4000006: The transaction identifier is invalid.
    public static let invalidTransactionId = APIErrorCode(rawValue: 4000006)

    /// 4000008: The original transaction identifier is invalid.
    public static let invalidOriginalTransactionId = APIErrorCode(rawValue: 4000008)

    /// 4000009: `extendByDays` is invalid (1 to 90).
    public static let invalidExtendByDays = APIErrorCode(rawValue: 4000009)

    /// 4000010: `extendReasonCode` is invalid.
    public static let invalidExtendReasonCode = APIErrorCode(rawValue: 4000010)

    /// 4000011: The request identifier is invalid.
    public static let invalidRequestIdentifier = APIErrorCode(rawValue: 4000011)

    /// 4000012: The start date is too far in the past (Get Notification History: 180 days).
    public static let startDateTooFarInPast = APIErrorCode(rawValue: 4000012)

    /// 4000013: The end date precedes the start date, or they are equal.
    public static let startDateAfterEndDate = APIErrorCode(rawValue: 4000013)

    /// 4000014: The pagination token is invalid.
    public static let invalidPaginationToken = APIErrorCode(rawValue: 4000014)

    /// 4000015: The start date is invalid.
    public static let invalidStartDate = APIErrorCode(rawValue: 4000015)

    /// 4000016: The end date is invalid.
    public static let invalidEndDate = APIErrorCode(rawValue: 4000016)

    /// 4000017: The pagination token expired.
    public static let paginationTokenExpired = APIErrorCode(rawValue: 4000017)

    /// 4000018: The notification type or subtype is invalid.
    public static let invalidNotificationType = APIErrorCode(rawValue: 4000018)

    /// 4000019: More than one filter was supplied (notification type and transaction id are exclusive).
    public static let multipleFiltersSupplied = APIErrorCode(rawValue: 4000019)

    /// 4000020: The test notification token is invalid.
    public static let invalidTestNotificationToken = APIErrorCode(rawValue: 4000020)

    /// 4000021: `sort` is invalid.
    public static let invalidSort = APIErrorCode(rawValue: 4000021)

    /// 4000022: `productType` is invalid.
    public static let invalidProductType = APIErrorCode(rawValue: 4000022)

    /// 4000023: `productId` is invalid.
    public static let invalidProductId = APIErrorCode(rawValue: 4000023)

    /// 4000024: `subscriptionGroupIdentifier` is invalid.
    public static let invalidSubscriptionGroupIdentifier = APIErrorCode(rawValue: 4000024)

    /// 4000025: `excludeRevoked` is invalid (deprecated parameter).
    public static let invalidExcludeRevoked = APIErrorCode(rawValue: 4000025)

    /// 4000026: `inAppOwnershipType` is invalid.
    public static let invalidInAppOwnershipType = APIErrorCode(rawValue: 4000026)

    /// 4000027: The storefront country code list is empty.
    public static let invalidEmptyStorefrontCountryCodeList = APIErrorCode(rawValue: 4000027)

    /// 4000028: A storefront country code is invalid.
    public static let invalidStorefrontCountryCode = APIErrorCode(rawValue: 4000028)

    /// 4000030: `revoked` is invalid.
    public static let invalidRevoked = APIErrorCode(rawValue: 4000030)

    /// 4000031: `status` is invalid.
    public static let invalidStatus = APIErrorCode(rawValue: 4000031)

    /// 4000032: `accountTenure` is invalid.
    public static let invalidAccountTenure = APIErrorCode(rawValue: 4000032)

    /// 4000033: `appAccountToken` is invalid.
    public static let invalidAppAccountToken = APIErrorCode(rawValue: 4000033)

    /// 4000034: `consumptionStatus` is invalid.
    public static let invalidConsumptionStatus = APIErrorCode(rawValue: 4000034)

    /// 4000035: `customerConsented` is invalid or false.
    public static let invalidCustomerConsented = APIErrorCode(rawValue: 4000035)

    /// 4000036: `deliveryStatus` is invalid.
    public static let invalidDeliveryStatus = APIErrorCode(rawValue: 4000036)

    /// 4000037: `lifetimeDollarsPurchased` is invalid.
    public static let invalidLifetimeDollarsPurchased = APIErrorCode(rawValue: 4000037)

    /// 4000038: `lifetimeDollarsRefunded` is invalid.
    public static let invalidLifetimeDollarsRefunded = APIErrorCode(rawValue: 4000038)

    /// 4000039: `platform` is invalid.
    public static let invalidPlatform = APIErrorCode(rawValue: 4000039)

    /// 4000040: `playTime` is invalid.
    public static let invalidPlayTime = APIErrorCode(rawValue: 4000040)

    /// 4000041: `sampleContentProvided` is invalid.
    public static let invalidSampleContentProvided = APIErrorCode(rawValue: 4000041)

    /// 4000042: `userStatus` is invalid.
    public static let invalidUserStatus = APIErrorCode(rawValue: 4000042)

    /// 4000043: The transaction is not a consumable (deprecated by Apple).
    public static let invalidTransactionNotConsumable = APIErrorCode(rawValue: 4000043)

    /// 4000047: The transaction's product type is not supported by the endpoint.
    public static let invalidTransactionTypeNotSupported = APIErrorCode(rawValue: 4000047)

    /// 4000048: The endpoint does not accept an app transaction identifier.
    public static let appTransactionIdNotSupported = APIErrorCode(rawValue: 4000048)

    /// 4000161: The retention-message image is invalid.
    public static let invalidImage = APIErrorCode(rawValue: 4000161)

    /// 4000162: The retention-message header is too long.
    public static let headerTooLong = APIErrorCode(rawValue: 4000162)

    /// 4000163: The retention-message body is too long.
    public static let bodyTooLong = APIErrorCode(rawValue: 4000163)

    /// 4000164: The locale is invalid.
    public static let invalidLocale = APIErrorCode(rawValue: 4000164)

    /// 4000175: The image alternative text is too long.
    public static let altTextTooLong = APIErrorCode(rawValue: 4000175)

    /// 4000183: `appAccountToken` is not a valid UUID.
    public static let invalidAppAccountTokenUUID = APIErrorCode(rawValue: 4000183)

    /// 4000185: The transaction is a Family Sharing transaction, which the endpoint does not support.
    public static let familyTransactionNotSupported = APIErrorCode(rawValue: 4000185)

    /// 4000187: The endpoint needs an original transaction identifier.
    public static let transactionIdNotOriginalTransactionId = APIErrorCode(rawValue: 4000187)

    /// 4000211: The performance test request is invalid.
    public static let invalidPerformanceTestRequest = APIErrorCode(rawValue: 4000211)

    /// 4000212: The performance test request identifier is invalid.
    public static let invalidRequestId = APIErrorCode(rawValue: 4000212)

    /// 4000213: A performance test is already running.
    public static let existingPerformanceTestRun = APIErrorCode(rawValue: 4000213)

    /// 4000215: The real-time URL is invalid.
    public static let badRequestRealtimeUrl = APIErrorCode(rawValue: 4000215)

    /// 4000216: The image size is invalid.
    public static let badRequestImageSize = APIErrorCode(rawValue: 4000216)

    /// 4000218: The message has too many bullet points.
    public static let badRequestTooManyBulletPoints = APIErrorCode(rawValue: 4000218)

    /// 4000219: A bullet point's text is too long.
    public static let badRequestBulletPointTextTooLong = APIErrorCode(rawValue: 4000219)

    /// 4000224: Header position `ABOVE_IMAGE` requires an image.
    public static let badRequestAboveImageRequiresAnImage = APIErrorCode(rawValue: 4000224)

    /// 4030004: The subscription is not eligible for a renewal-date extension.
    public static let subscriptionExtensionIneligible = APIErrorCode(rawValue: 4030004)

    /// 4030005: The subscription reached the maximum number of renewal-date extensions.
    public static let subscriptionMaxExtension = APIErrorCode(rawValue: 4030005)

    /// 4030007: Family Sharing subscriptions cannot be extended.
    public static let familySharedSubscriptionExtensionIneligible = APIErrorCode(rawValue: 4030007)

    /// 4030014: The app reached the maximum number of retention-message images.
    public static let maximumNumberOfImagesReached = APIErrorCode(rawValue: 4030014)

    /// 4030016: The app reached the maximum number of retention messages.
    public static let maximumNumberOfMessagesReached = APIErrorCode(rawValue: 4030016)

    /// 4030017: The retention message is not approved.
    public static let messageNotApproved = APIErrorCode(rawValue: 4030017)

    /// 4030018: The retention-message image is not approved.
    public static let imageNotApproved = APIErrorCode(rawValue: 4030018)

    /// 4030019: The image is used by a message.
    public static let imageInUse = APIErrorCode(rawValue: 4030019)

    /// 4030026: The real-time URL has not passed a performance test.
    public static let forbiddenNoPassingTest = APIErrorCode(rawValue: 4030026)

    /// 4040001: The App Store account was not found.
    public static let accountNotFound = APIErrorCode(rawValue: 4040001)

    /// 4040002: The App Store account was not found; retry later.
    public static let accountNotFoundRetryable = APIErrorCode(rawValue: 4040002)

    /// 4040003: The app was not found.
    public static let appNotFound = APIErrorCode(rawValue: 4040003)

    /// 4040004: The app was not found; retry later.
    public static let appNotFoundRetryable = APIErrorCode(rawValue: 4040004)

    /// 4040005: The original transaction identifier was not found.
    public static let originalTransactionIdNotFound = APIErrorCode(rawValue: 4040005)

    /// 4040006: The original transaction identifier was not found; retry later.
    public static let originalTransactionIdNotFoundRetryable = APIErrorCode(rawValue: 4040006)

    /// 4040007: No server notification URL is configured for the app.
    public static let serverNotificationUrlNotFound = APIErrorCode(rawValue: 4040007)

    /// 4040008: The test notification was not found.
    public static let testNotificationNotFound = APIErrorCode(rawValue: 4040008)

    /// 4040009: The renewal-date extension request was not found.
    public static let statusRequestNotFound = APIErrorCode(rawValue: 4040009)

    /// 4040010: The transaction identifier was not found.
    public static let transactionIdNotFound = APIErrorCode(rawValue: 4040010)

    /// 4040014: The image was not found.
    public static let imageNotFound = APIErrorCode(rawValue: 4040014)

    /// 4040015: The message was not found.
    public static let messageNotFound = APIErrorCode(rawValue: 4040015)

    /// 4040018: The performance test run was not found.
    public static let performanceTestRunNotFound = APIErrorCode(rawValue: 4040018)

    /// 4040019: No app transaction exists for the customer.
    public static let appTransactionDoesNotExistError = APIErrorCode(rawValue: 4040019)

    /// 4040020: No default message is configured.
    public static let defaultMessageNotFound = APIErrorCode(rawValue: 4040020)

    /// 4040021: No real-time URL is configured.
    public static let realtimeUrlNotFound = APIErrorCode(rawValue: 4040021)

    /// 4090000: An image with this identifier already exists.
    public static let imageAlreadyExists = APIErrorCode(rawValue: 4090000)

    /// 4090001: A message with this identifier already exists.
    public static let messageAlreadyExists = APIErrorCode(rawValue: 4090001)

    /// 4290000: The request exceeded the endpoint's rate limit; the `Retry-After` header says when to retry.
    public static let rateLimitExceeded = APIErrorCode(rawValue: 4290000)

    /// 5000000: An internal error occurred.
    public static let generalInternal = APIErrorCode(rawValue: 5000000)

    /// 5000001: An internal error occurred; retry later.
    public static let generalInternalRetryable = APIErrorCode(rawValue: 5000001)

    public static let known: [APIErrorCode] = [
        .generalBadRequest, .invalidAppIdentifier, .invalidRequestRevision, .invalidTransactionId,
        .invalidOriginalTransactionId, .invalidExtendByDays, .invalidExtendReasonCode,
        .invalidRequestIdentifier, .startDateTooFarInPast, .startDateAfterEndDate, .invalidPaginationToken,
        .invalidStartDate, .invalidEndDate, .paginationTokenExpired, .invalidNotificationType,
        .multipleFiltersSupplied, .invalidTestNotificationToken, .invalidSort, .invalidProductType,
        .invalidProductId, .invalidSubscriptionGroupIdentifier, .invalidExcludeRevoked,
        .invalidInAppOwnershipType, .invalidEmptyStorefrontCountryCodeList, .invalidStorefrontCountryCode,
        .invalidRevoked, .invalidStatus, .invalidAccountTenure, .invalidAppAccountToken,
        .invalidConsumptionStatus, .invalidCustomerConsented, .invalidDeliveryStatus,
        .invalidLifetimeDollarsPurchased, .invalidLifetimeDollarsRefunded, .invalidPlatform, .invalidPlayTime,
        .invalidSampleContentProvided, .invalidUserStatus, .invalidTransactionNotConsumable,
        .invalidTransactionTypeNotSupported, .appTransactionIdNotSupported, .invalidImage, .headerTooLong,
        .bodyTooLong, .invalidLocale, .altTextTooLong, .invalidAppAccountTokenUUID,
        .familyTransactionNotSupported, .transactionIdNotOriginalTransactionId,
        .invalidPerformanceTestRequest, .invalidRequestId, .existingPerformanceTestRun,
        .badRequestRealtimeUrl, .badRequestImageSize, .badRequestTooManyBulletPoints,
        .badRequestBulletPointTextTooLong, .badRequestAboveImageRequiresAnImage,
        .subscriptionExtensionIneligible, .subscriptionMaxExtension,
        .familySharedSubscriptionExtensionIneligible, .maximumNumberOfImagesReached,
        .maximumNumberOfMessagesReached, .messageNotApproved, .imageNotApproved, .imageInUse,
        .forbiddenNoPassingTest, .accountNotFound, .accountNotFoundRetryable, .appNotFound,
        .appNotFoundRetryable, .originalTransactionIdNotFound, .originalTransactionIdNotFoundRetryable,
        .serverNotificationUrlNotFound, .testNotificationNotFound, .statusRequestNotFound,
        .transactionIdNotFound, .imageNotFound, .messageNotFound, .performanceTestRunNotFound,
        .appTransactionDoesNotExistError, .defaultMessageNotFound, .realtimeUrlNotFound, .imageAlreadyExists,
        .messageAlreadyExists, .rateLimitExceeded, .generalInternal, .generalInternalRetryable,
    ]

    /// The spelling Apple's Swift library uses for ``appTransactionDoesNotExistError``.
    public static let AppTransactionDoesNotExistError = appTransactionDoesNotExistError

    /// The HTTP status the code belongs to (its first three digits), e.g. 404 for 4040010.
    public var httpStatus: Int { Int(rawValue / 10_000) }

    /// Whether Apple documents the error as transient, so the same request may succeed later.
    public var isRetryable: Bool {
        [
            .accountNotFoundRetryable, .appNotFoundRetryable, .originalTransactionIdNotFoundRetryable,
            .generalInternalRetryable, .rateLimitExceeded,
        ].contains(self)
    }
}
