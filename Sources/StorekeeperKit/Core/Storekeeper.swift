import Crypto
import Foundation

/// StorekeeperKit's entry point: one per app process.
///
/// ```swift
/// let storekeeper = try Storekeeper(
///     configuration: StorekeeperConfiguration(
///         serverURL: URL(string: "https://subscriptions.example.com")!, appId: "myapp", apiKey: "sk_app_…",
///         appUserId: user.id, certificatePins: ["sha256/…"], stateDirectory: applicationSupport),
///     store: StoreKitBackend())
/// await storekeeper.start()
/// let info = try await storekeeper.customerInfo()
/// ```
///
/// Purchases are posted to the server and finished only once it has recorded them; what it has
/// not recorded is kept on disk and posted again (at launch, from the store's updates, on
/// ``retryPendingPurchases()``) up to ``StorekeeperConfiguration/deliveryAttempts`` times, then
/// reported to the server as a problem. Customer information comes from the server's signed
/// answers and, while the server cannot be reached, from the last one kept on disk for the
/// offline window.
public actor Storekeeper {
    public let configuration: StorekeeperConfiguration
    /// The customer the SDK acts for (the app user id, or the anonymous id).
    public private(set) var customerId: String
    let store: any StoreBackend
    let server: ServerClient
    let cache: OfflineCache
    let pendingFile: PendingPurchaseFile
    let tokenFile: AppAccountTokenFile
    var serverKey: P256.Signing.PublicKey?
    var observers: [UUID: AsyncStream<CustomerInfo>.Continuation] = [:]
    var promoted: [PurchaseIntent] = []
    var promotedAllowed = false
    var listeners: [Task<Void, Never>] = []

    /// - Parameters:
    ///   - store: the device's App Store (``StoreKitBackend`` on Apple platforms).
    ///   - transport: how to reach the server; the platform's default with the configured pins
    ///     when `nil`.
    ///   - clock: the device's clocks (tests pass their own).
    /// - Throws: ``StorekeeperError`` (`configuration`) for a malformed pin or public key.
    public init(
        configuration: StorekeeperConfiguration, store: any StoreBackend, transport: (any StorekeeperTransport)? = nil,
        clock: DeviceClock = .system
    ) throws {
        self.configuration = configuration
        self.store = store
        let pins = try CertificatePins(configuration.certificatePins)
        server = ServerClient(configuration: configuration, transport: transport ?? Self.defaultTransport(pins: pins))
        cache = OfflineCache(directory: configuration.stateDirectory, clock: clock)
        pendingFile = PendingPurchaseFile(url: configuration.stateDirectory.appendingPathComponent("pending-purchases.json"))
        tokenFile = AppAccountTokenFile(url: configuration.stateDirectory.appendingPathComponent(Self.appAccountTokenFile))
        customerId = try configuration.appUserId ?? Self.anonymousId(in: configuration.stateDirectory)
        if let pem = configuration.serverPublicKey {
            do {
                serverKey = try P256.Signing.PublicKey(pemRepresentation: pem)
            } catch {
                throw StorekeeperError(.configuration, "serverPublicKey is not a PEM P-256 public key")
            }
        } else {
            serverKey = Self.pinnedServerKey(in: configuration.stateDirectory)
        }
    }

    /// The platform's transport: URLSession on Apple platforms; on Linux AsyncHTTPClient, or the
    /// pinning NIO client when there are pins.
    public static func defaultTransport(pins: CertificatePins) -> any StorekeeperTransport {
        #if canImport(Darwin)
        return URLSessionTransport(pins: pins)
        #elseif canImport(NIOSSL) && canImport(AsyncHTTPClient)
        return pins.isEmpty ? AsyncHTTPClientTransport() : PinnedHTTPTransport(pins: pins)
        #else
        return URLSessionTransport(pins: pins)
        #endif
    }

    // MARK: - Launch

    /// Call once at launch: posts what an earlier run left undelivered, then listens to the
    /// store's transaction updates and purchase intents for the rest of the process.
    public func start() async {
        guard listeners.isEmpty else { return }
        let updates = store.transactionUpdates()
        let intents = store.purchaseIntents()
        listeners.append(
            Task { [weak self] in
                for await transaction in updates {
                    guard let self else { return }
                    _ = await self.deliver(transaction, force: false)
                }
            })
        listeners.append(
            Task { [weak self] in
                for await intent in intents {
                    guard let self else { return }
                    await self.received(intent)
                }
            })
        _ = await retryPendingPurchases()
    }

    /// Stops listening (the streams of ``customerInfoUpdates()`` end too).
    public func stop() {
        for listener in listeners { listener.cancel() }
        listeners = []
        for observer in observers.values { observer.finish() }
        observers = [:]
    }

    // MARK: - Customer information

    /// The customer's entitlements: the server's signed answer, kept for offline use; while the
    /// server cannot be reached, the kept answer inside the offline window (``CustomerInfo/source``
    /// says which).
    ///
    /// - Throws: ``StorekeeperError``: `pinMismatch` (the cache is not used then), `server` for an
    ///   error answer, `noCustomerInfo` when offline without a usable cache.
    public func customerInfo() async throws -> CustomerInfo {
        do {
            let state = try await fetchSignedState()
            try? cache.save(state)
            let info = state.customerInfo(source: .server, now: state.signedDate, offlineUntil: nil)
            publish(info)
            return info
        } catch let error as StorekeeperError where error.isTransient {
            let info = try cachedCustomerInfo(offline: error)
            publish(info)
            return info
        }
    }

    /// The kept answer alone, without asking the server.
    public func cachedCustomerInfo() throws -> CustomerInfo {
        try cachedCustomerInfo(offline: nil)
    }

    func cachedCustomerInfo(offline: StorekeeperError?) throws -> CustomerInfo {
        let why = offline.map { " (the server: \($0))" } ?? ""
        guard let key = serverKey else {
            throw StorekeeperError(.noCustomerInfo, "no server key is known yet, so no cached state can be trusted\(why)")
        }
        switch cache.read(key: key, appId: configuration.appId, customerId: customerId, window: configuration.offlineWindow) {
        case .usable(let info):
            return info
        case .missing:
            throw StorekeeperError(.noCustomerInfo, "no cached customer state\(why)")
        case .expired(let until):
            throw StorekeeperError(.noCustomerInfo, "the cached customer state's offline window ended at \(until)\(why)")
        case .invalid(let reason):
            throw StorekeeperError(.noCustomerInfo, "the cached customer state is ignored: \(reason)\(why)")
        }
    }

    /// Every customer information the SDK learns from now on.
    public func customerInfoUpdates() -> AsyncStream<CustomerInfo> {
        let (stream, continuation) = AsyncStream.makeStream(of: CustomerInfo.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    func removeObserver(_ id: UUID) { observers[id] = nil }

    func publish(_ info: CustomerInfo) {
        for observer in observers.values { observer.yield(info) }
    }

    struct SignedStateAnswer: Decodable {
        var signedState: String
        var keyId: String?
    }

    struct SigningKeyAnswer: Decodable {
        var keyId: String
        var publicKey: String
    }

    func fetchSignedState() async throws -> SignedCustomerState {
        let key = try await trustedServerKey()
        let answer = try server.decode(SignedStateAnswer.self, try await server.call("GET", ["customers", customerId, "signed-state"]))
        return try SignedCustomerState.verified(answer.signedState, key: key, appId: configuration.appId, customerId: customerId)
    }

    /// The configured or pinned key; fetched from the server and pinned at first use.
    func trustedServerKey() async throws -> P256.Signing.PublicKey {
        if let serverKey { return serverKey }
        let answer = try server.decode(SigningKeyAnswer.self, try await server.call("GET", ["state-signing-key"]))
        guard let key = try? P256.Signing.PublicKey(pemRepresentation: answer.publicKey) else {
            throw StorekeeperError(.invalidAnswer, "the server's state signing key is not a P-256 public key")
        }
        let url = configuration.stateDirectory.appendingPathComponent(Self.serverKeyFile)
        try? FileManager.default.createDirectory(at: configuration.stateDirectory, withIntermediateDirectories: true)
        try? Data(key.pemRepresentation.utf8).write(to: url, options: .atomic)
        serverKey = key
        return key
    }

    static let serverKeyFile = "server-key.pem"

    static func pinnedServerKey(in directory: URL) -> P256.Signing.PublicKey? {
        guard let text = try? String(contentsOf: directory.appendingPathComponent(serverKeyFile), encoding: .utf8) else { return nil }
        return try? P256.Signing.PublicKey(pemRepresentation: text)
    }

    // MARK: - Identity

    /// The anonymous id of this install: `anon-` and 32 hex digits, made once.
    static func anonymousId(in directory: URL) throws -> String {
        let url = directory.appendingPathComponent("anonymous-id")
        if let text = try? String(contentsOf: url, encoding: .utf8), text.hasPrefix("anon-") {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let id = "anon-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(id.utf8).write(to: url, options: .atomic)
        } catch {
            throw StorekeeperError(.configuration, "cannot keep the anonymous id in \(directory.path): \(error)")
        }
        return id
    }

    /// Switches to the app's own id of the user (after sign-in). The purchases the store holds
    /// are posted for the new customer, so those not yet linked to anyone become theirs; what
    /// the server already linked to the anonymous customer stays there (the server moves no
    /// purchase between customers) and is counted in the answer.
    ///
    /// - Returns: the new customer's information and how many purchases stayed with another
    ///   customer.
    public func identify(appUserId: String) async throws -> (info: CustomerInfo, keptByAnotherCustomer: Int) {
        guard appUserId != customerId else { return (try await customerInfo(), 0) }
        customerId = appUserId
        cache.clear()
        var kept = 0
        for transaction in await store.currentEntitlements() {
            do {
                try await post(transaction)
            } catch let error as StorekeeperError where error.serverCode == "transaction_belongs_to_another_customer" {
                kept += 1
            }
        }
        return (try await customerInfo(), kept)
    }
}
