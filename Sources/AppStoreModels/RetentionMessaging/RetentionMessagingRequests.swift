/// The response of Get Image List.
public struct GetImageListResponse: Codable, Hashable, Sendable {
    /// The uploaded images.
    public var imageIdentifiers: [GetImageListResponseItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(imageIdentifiers: [GetImageListResponseItem]? = nil) {
        self.imageIdentifiers = imageIdentifiers
    }
}

/// An uploaded retention-message image and its review state.
public struct GetImageListResponseItem: Codable, Hashable, Sendable {
    /// The image identifier (a UUID string).
    public var imageIdentifier: String?

    /// The review state.
    public var imageState: ImageState?

    /// The size class.
    public var imageSize: ImageSize?

    /// Creates a value from its fields; optional fields default to absent.
    public init(imageIdentifier: String? = nil, imageState: ImageState? = nil, imageSize: ImageSize? = nil) {
        self.imageIdentifier = imageIdentifier
        self.imageState = imageState
        self.imageSize = imageSize
    }
}

/// The response of Get Message List.
public struct GetMessageListResponse: Codable, Hashable, Sendable {
    /// The uploaded messages.
    public var messageIdentifiers: [GetMessageListResponseItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifiers: [GetMessageListResponseItem]? = nil) {
        self.messageIdentifiers = messageIdentifiers
    }
}

/// An uploaded retention message and its review state.
public struct GetMessageListResponseItem: Codable, Hashable, Sendable {
    /// The message identifier (a UUID string).
    public var messageIdentifier: String?

    /// The review state.
    public var messageState: MessageState?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil, messageState: MessageState? = nil) {
        self.messageIdentifier = messageIdentifier
        self.messageState = messageState
    }
}

/// The body of Initiate Performance Test.
public struct PerformanceTestRequest: Codable, Hashable, Sendable {
    /// A sandbox subscription to use in the test requests.
    public var originalTransactionId: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(originalTransactionId: String) {
        self.originalTransactionId = originalTransactionId
    }
}

/// The response of Initiate Performance Test.
public struct PerformanceTestResponse: Codable, Hashable, Sendable {
    /// The test's parameters.
    public var config: PerformanceTestConfig?

    /// The identifier to pass to Get Performance Test Results.
    public var requestId: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(config: PerformanceTestConfig? = nil, requestId: String? = nil) {
        self.config = config
        self.requestId = requestId
    }
}

/// The body of Configure Realtime URL.
public struct RealtimeUrlRequest: Codable, Hashable, Sendable {
    /// Your HTTPS endpoint for real-time retention requests.
    public var realtimeURL: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(realtimeURL: String) {
        self.realtimeURL = realtimeURL
    }
}

/// The response of Get Realtime URL.
public struct RealtimeUrlResponse: Codable, Hashable, Sendable {
    /// The configured real-time URL.
    public var realtimeURL: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(realtimeURL: String? = nil) {
        self.realtimeURL = realtimeURL
    }
}

/// The JSON body Apple POSTs to your Retention Messaging real-time URL.
public struct RealtimeRequestBody: Codable, Hashable, Sendable {
    /// The request, as a JWS (`DecodedRealtimeRequestBody`).
    public var signedPayload: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedPayload: String? = nil) {
        self.signedPayload = signedPayload
    }
}

/// The body of Configure Default Message for a product and locale.
public struct DefaultConfigurationRequest: Codable, Hashable, Sendable {
    /// The approved message to show by default (a UUID string).
    public var messageIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil) {
        self.messageIdentifier = messageIdentifier
    }
}

/// The response of Get Default Message.
public struct DefaultConfigurationResponse: Codable, Hashable, Sendable {
    /// The default message (a UUID string).
    public var messageIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil) {
        self.messageIdentifier = messageIdentifier
    }
}

/// An image shown in a retention message.
public struct UploadMessageImage: Codable, Hashable, Sendable {
    /// The identifier of an uploaded image (a UUID string).
    public var imageIdentifier: String

    /// Alternative text for accessibility (at most 150 characters).
    public var altText: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(imageIdentifier: String, altText: String) {
        self.imageIdentifier = imageIdentifier
        self.altText = altText
    }
}
