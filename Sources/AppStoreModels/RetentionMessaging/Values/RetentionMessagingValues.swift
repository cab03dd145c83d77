/// The review state of an uploaded retention-message image.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ImageState: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Awaiting review.
    public static let pending = ImageState(rawValue: "PENDING")

    /// Approved.
    public static let approved = ImageState(rawValue: "APPROVED")

    /// Rejected.
    public static let rejected = ImageState(rawValue: "REJECTED")

    public static let known: [ImageState] = [
        .pending, .approved, .rejected,
    ]
}

/// Where a retention message's header appears.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct HeaderPosition: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Above the body text.
    public static let aboveBody = HeaderPosition(rawValue: "ABOVE_BODY")

    /// Above the image (requires an image).
    public static let aboveImage = HeaderPosition(rawValue: "ABOVE_IMAGE")

    public static let known: [HeaderPosition] = [
        .aboveBody, .aboveImage,
    ]
}

/// The result of a Retention Messaging real-time endpoint performance test.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct PerformanceTestStatus: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The test is running.
    public static let pending = PerformanceTestStatus(rawValue: "PENDING")

    /// The endpoint passed.
    public static let pass = PerformanceTestStatus(rawValue: "PASS")

    /// The endpoint failed.
    public static let fail = PerformanceTestStatus(rawValue: "FAIL")

    public static let known: [PerformanceTestStatus] = [
        .pending, .pass, .fail,
    ]
}

/// The size class of a retention-message image.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ImageSize: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A full-size image.
    public static let fullSize = ImageSize(rawValue: "FULL_SIZE")

    /// A bullet-point icon.
    public static let bulletPoint = ImageSize(rawValue: "BULLET_POINT")

    public static let known: [ImageSize] = [
        .fullSize, .bulletPoint,
    ]
}

/// The review state of an uploaded retention message.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct MessageState: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Awaiting review.
    public static let pending = MessageState(rawValue: "PENDING")

    /// Approved.
    public static let approved = MessageState(rawValue: "APPROVED")

    /// Rejected.
    public static let rejected = MessageState(rawValue: "REJECTED")

    public static let known: [MessageState] = [
        .pending, .approved, .rejected,
    ]
}
