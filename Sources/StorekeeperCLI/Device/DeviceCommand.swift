import ArgumentParser
import AsyncHTTPClient
import Foundation
import StorekeeperKit

/// `storekeeper device …`: a simulated device running StorekeeperKit's core against a
/// Storekeeper server, with the App Store simulator as its store. Prints JSON.
public struct DeviceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Drive StorekeeperKit from a simulated device (the simulator as its App Store).",
        discussion: """
            Every run first posts again the purchases an earlier run left undelivered (as an app does at
            launch). Exit codes: 0 done; 1 not charged, or no customer information; 2 usage; 3 charged
            but not delivered yet (kept, retried next run); 4 charged and given up on (reported as a problem).
            """,
        subcommands: [
            DevicePurchaseCommand.self, DeviceCustomerInfoCommand.self, DeviceRestoreCommand.self, DeviceRetryCommand.self,
            DeviceAppAccountTokenCommand.self,
        ]
    )

    public init() {}
}

/// What every device command takes.
struct DeviceOptions: ParsableArguments {
    @Option(help: "The Storekeeper server, e.g. http://127.0.0.1:8080 or https://….")
    var server: String

    @Option(help: "The app's API key.")
    var apiKey: String

    @Option(help: "The app's id on the server.")
    var app: String = "local"

    @Option(help: "The App Store simulator, e.g. http://127.0.0.1:9090.")
    var simulator: String = "http://127.0.0.1:9090"

    @Option(help: "The app's id of the user.")
    var customer: String

    @Option(help: "Where the device keeps its cache and pending purchases (default: .storekeeper-device/<customer>).")
    var stateDir: String?

    @Option(help: "A SHA-256 pin of the server certificate's public key (base64, optionally sha256/…); repeatable.")
    var pin: [String] = []

    @Option(help: "Seconds the cached signed state may serve without the server (default 10 days; never past its signed offlineUntil).")
    var offlineWindow: Double = 10 * 86_400

    @Option(help: "A PEM file with the server's customer-state public key (default: fetched once and pinned).")
    var serverPublicKey: String?

    @Option(help: "Posts of a charged purchase before it is given up on and reported as a problem.")
    var attempts: Int = 5

    @Option(help: "Seconds a request to the server may take.")
    var timeout: Double = 10

    func validate() throws {
        guard URL(string: server)?.host != nil else { throw ValidationError("--server must be a URL") }
        guard URL(string: simulator)?.host != nil else { throw ValidationError("--simulator must be a URL") }
        guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1") }
        guard offlineWindow >= 0 else { throw ValidationError("--offline-window must not be negative") }
    }

    /// Runs `body` with a configured SDK whose store is the simulator; posts what earlier runs
    /// left first.
    func withDevice<Result>(_ body: (StorekeeperKit.Storekeeper) async throws -> Result) async throws -> Result {
        guard let serverURL = URL(string: server), let simulatorURL = URL(string: simulator) else {
            throw CLIFailure.usage("--server and --simulator must be URLs")
        }
        var publicKey: String?
        if let serverPublicKey {
            guard let text = try? String(contentsOfFile: serverPublicKey, encoding: .utf8) else {
                throw CLIFailure.usage("cannot read \(serverPublicKey)")
            }
            publicKey = text
        }
        let directory = URL(fileURLWithPath: stateDir ?? ".storekeeper-device/\(customer)")
        let configuration = StorekeeperConfiguration(
            serverURL: serverURL, appId: app, apiKey: apiKey, appUserId: customer, certificatePins: pin, offlineWindow: offlineWindow,
            serverPublicKey: publicKey, stateDirectory: directory, deliveryAttempts: attempts, requestTimeout: timeout)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let store = SimulatorStoreBackend(simulator: simulatorURL, customerId: customer, client: client)
            let storekeeper: StorekeeperKit.Storekeeper
            do {
                storekeeper = try StorekeeperKit.Storekeeper(configuration: configuration, store: store)
            } catch {
                throw CLIFailure.usage("\(error)")
            }
            _ = await storekeeper.retryPendingPurchases()
            let result = try await body(storekeeper)
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// The JSON the device commands print.
struct DeviceReport: Encodable {
    var outcome: String?
    var transactionId: String?
    var reason: String?
    var attempts: Int?
    var problemReported: Bool?
    var customerInfo: CustomerInfoReport?
    var pending: [PendingReport]?
    var appAccountToken: String?
    var error: String?

    struct CustomerInfoReport: Encodable {
        var customerId: String
        var source: String
        var serverDate: String
        var offlineUntil: String?
        var entitlements: [EntitlementReport]

        init(_ info: CustomerInfo) {
            customerId = info.customerId
            source = info.source.rawValue
            serverDate = ISO8601DateFormatter().string(from: info.serverDate)
            offlineUntil = info.offlineUntil.map { ISO8601DateFormatter().string(from: $0) }
            entitlements = info.entitlements.values.sorted { $0.identifier < $1.identifier }.map(EntitlementReport.init)
        }
    }

    struct EntitlementReport: Encodable {
        var identifier: String
        var productId: String
        var productType: String
        var expiresDate: String?
        var willRenew: Bool?
        var basis: String

        init(_ entitlement: EntitlementInfo) {
            identifier = entitlement.identifier
            productId = entitlement.productId
            productType = entitlement.productType
            expiresDate = entitlement.expiresDate.map { ISO8601DateFormatter().string(from: $0) }
            willRenew = entitlement.willRenew
            basis = entitlement.basis
        }
    }

    struct PendingReport: Encodable {
        var transactionId: String
        var productId: String
        var attempts: Int
        var state: String
        var problemReported: Bool
        var lastError: String?

        init(_ pending: PendingPurchase) {
            transactionId = pending.transaction.id
            productId = pending.transaction.productId
            attempts = pending.attempts
            state = pending.state.rawValue
            problemReported = pending.problemReported
            lastError = pending.lastError
        }
    }

    init(_ outcome: PurchaseOutcome) {
        self.outcome = outcome.group
        switch outcome {
        case .notCharged(let why): reason = "\(why)"
        case .delivered(let id, let info):
            transactionId = id
            customerInfo = info.map(CustomerInfoReport.init)
        case .chargedNotDelivered(let id, let attempts, let reason):
            transactionId = id
            self.attempts = attempts
            self.reason = reason
        case .chargedGivenUp(let id, let reason, let reported):
            transactionId = id
            self.reason = reason
            problemReported = reported
        }
    }

    init(info: CustomerInfo) {
        customerInfo = CustomerInfoReport(info)
    }

    init(pending: [PendingPurchase]) {
        self.pending = pending.map(PendingReport.init)
    }

    init(appAccountToken: String) {
        self.appAccountToken = appAccountToken
    }

    /// Prints the report; the exit code of an outcome.
    static func print(_ report: DeviceReport) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(report)) ?? Data()
        Console.out(data + Data("\n".utf8))
    }

    static func exitCode(_ outcome: PurchaseOutcome) -> Int32 {
        switch outcome {
        case .delivered: return 0
        case .notCharged: return 1
        case .chargedNotDelivered: return 3
        case .chargedGivenUp: return 4
        }
    }
}

struct DevicePurchaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchase", abstract: "Buy a product on the simulated device and deliver it through the server.")

    @OptionGroup var options: DeviceOptions

    @Option(help: "The product to buy.")
    var product: String

    @Option(help: "A promotional offer id (signed by the server).")
    var offer: String?

    func run() async throws {
        let outcome = try await options.withDevice { await $0.purchase(productId: product, promotionalOfferId: offer) }
        DeviceReport.print(DeviceReport(outcome))
        let code = DeviceReport.exitCode(outcome)
        if code != 0 { throw CLIFailure(exitCode: code, message: "") }
    }
}

struct DeviceCustomerInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "customer-info",
        abstract: "Print the customer's entitlements: the server's signed answer, or the cached one while it is unreachable.")

    @OptionGroup var options: DeviceOptions

    func run() async throws {
        do {
            let info = try await options.withDevice { try await $0.customerInfo() }
            DeviceReport.print(DeviceReport(info: info))
        } catch let error as StorekeeperError {
            throw CLIFailure(exitCode: 1, message: "\(error)")
        }
    }
}

struct DeviceRestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Restore purchases: sync with the App Store and post every current transaction.")

    @OptionGroup var options: DeviceOptions

    func run() async throws {
        do {
            let info = try await options.withDevice { try await $0.restorePurchases() }
            DeviceReport.print(DeviceReport(info: info))
        } catch let error as StorekeeperError {
            throw CLIFailure(exitCode: 1, message: "\(error)")
        }
    }
}

struct DeviceRetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending", abstract: "Post again what waits for the server, then list what still waits.")

    @OptionGroup var options: DeviceOptions

    func run() async throws {
        let pending = try await options.withDevice { await $0.pendingPurchases() }
        DeviceReport.print(DeviceReport(pending: pending))
    }
}

struct DeviceAppAccountTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-account-token",
        abstract: "Print the app account token the server issued to the customer (asked once, then kept on the device).")

    @OptionGroup var options: DeviceOptions

    func run() async throws {
        let token: UUID
        do {
            token = try await options.withDevice { try await $0.appAccountToken() }
        } catch let error as StorekeeperError {
            throw CLIFailure(exitCode: 1, message: "no app account token: \(error)")
        }
        DeviceReport.print(DeviceReport(appAccountToken: token.uuidString.lowercased()))
    }
}
