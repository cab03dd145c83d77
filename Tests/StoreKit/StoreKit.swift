// The handful of StoreKit 2 declarations StorekeeperKit's adapter uses, copied from Apple's
// documentation (developer.apple.com/documentation/storekit), so that the adapter's source is
// type-checked on Linux (the StoreKitAdapterCheck test target). Only the signatures matter:
// this module is never shipped, and its bodies only give the check's tests something to call.
import Foundation

public struct Product: Identifiable, Sendable {
    public let id: String
    public let type: ProductType
    public let displayName: String
    public let displayPrice: String
    public let subscription: SubscriptionInfo?

    public init(id: String, type: ProductType, displayName: String, displayPrice: String, subscription: SubscriptionInfo?) {
        self.id = id
        self.type = type
        self.displayName = displayName
        self.displayPrice = displayPrice
        self.subscription = subscription
    }

    public struct ProductType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let consumable = ProductType(rawValue: "consumable")
        public static let nonConsumable = ProductType(rawValue: "nonConsumable")
        public static let nonRenewable = ProductType(rawValue: "nonRenewable")
        public static let autoRenewable = ProductType(rawValue: "autoRenewable")
    }

    public struct SubscriptionInfo: Sendable {
        public let subscriptionGroupID: String
        public init(subscriptionGroupID: String) { self.subscriptionGroupID = subscriptionGroupID }
    }

    public struct SubscriptionOffer: Sendable {
        public let id: String?
    }

    public struct PurchaseOption: Hashable, Sendable {
        let name: String
        public static func appAccountToken(_ token: UUID) -> PurchaseOption { PurchaseOption(name: "appAccountToken \(token)") }
        public static func promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) -> PurchaseOption {
            PurchaseOption(name: "promotionalOffer \(offerID)")
        }
    }

    public enum PurchaseResult: Sendable {
        case success(VerificationResult<Transaction>)
        case userCancelled
        case pending
    }

    public enum PurchaseError: Error, Sendable {
        case invalidQuantity, productUnavailable, purchaseNotAllowed, ineligibleForOffer, invalidOfferIdentifier, invalidOfferPrice,
            invalidOfferSignature, missingOfferParameters
    }

    public static func products<Identifiers: Collection & Sendable>(for identifiers: Identifiers) async throws -> [Product]
    where Identifiers.Element == String {
        []
    }

    public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        throw PurchaseError.productUnavailable
    }
}

public enum VerificationResult<SignedType: Sendable>: Sendable {
    case unverified(SignedType, VerificationError)
    case verified(SignedType)

    public enum VerificationError: Error, Sendable {
        case revokedCertificate, invalidCertificateChain, invalidDeviceVerification, invalidEncoding, invalidSignature, missingRequiredProperties
    }

    public var jwsRepresentation: String { "" }
}

public struct Transaction: Sendable {
    public let id: UInt64
    public let originalID: UInt64
    public let productID: String
    public let appAccountToken: UUID?
    public let purchaseDate: Date
    public let revocationDate: Date?

    public init(id: UInt64, originalID: UInt64, productID: String, appAccountToken: UUID?, purchaseDate: Date, revocationDate: Date?) {
        self.id = id
        self.originalID = originalID
        self.productID = productID
        self.appAccountToken = appAccountToken
        self.purchaseDate = purchaseDate
        self.revocationDate = revocationDate
    }

    public func finish() async {}

    public struct Transactions: AsyncSequence, Sendable {
        public typealias Element = VerificationResult<Transaction>
        public struct AsyncIterator: AsyncIteratorProtocol {
            public mutating func next() async -> VerificationResult<Transaction>? { nil }
        }
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }

    public static var updates: Transactions { Transactions() }
    public static var unfinished: Transactions { Transactions() }
    public static var currentEntitlements: Transactions { Transactions() }
}

public enum AppStore {
    public static func sync() async throws {}
}

public enum StoreKitError: Error, Sendable {
    case unknown
    case userCancelled
    case networkError(URLError)
    case systemError(any Error & Sendable)
    case notAvailableInStorefront
    case notEntitled
    case unsupported
}

public struct PurchaseIntent: Sendable {
    public let product: Product
    public let offer: Product.SubscriptionOffer?

    public struct PurchaseIntents: AsyncSequence, Sendable {
        public typealias Element = PurchaseIntent
        public struct AsyncIterator: AsyncIteratorProtocol {
            public mutating func next() async -> PurchaseIntent? { nil }
        }
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }

    public static var intents: PurchaseIntents { PurchaseIntents() }
}
