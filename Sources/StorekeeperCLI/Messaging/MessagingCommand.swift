import AppStoreModels
import AppStoreServerAPI
import ArgumentParser
import Foundation
import StorekeeperApps

/// `storekeeper messaging`: an app's Retention Messaging content at Apple (images, messages,
/// default messages per product and locale, the real-time URL), through the App Store Server
/// API credentials of the app in the server configuration.
///
/// Every command prints one JSON document. Exit codes: 0 done; 1 Apple refused (its error code
/// named on standard error); 2 a usage error (options, configuration, credentials, files);
/// 3 Apple could not be reached or answered something unreadable.
struct MessagingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messaging",
        abstract: "Manage the app's Retention Messaging content at Apple: images, messages, defaults, the real-time URL.",
        discussion: """
            Credentials come from the app's appStoreServerAPI settings in the configuration file \
            (--config, or $STOREKEEPER_CONFIG); its baseURL, when set, points the calls at an App Store simulator.
            """,
        subcommands: [
            MessagingImagesCommand.self, MessagingMessagesCommand.self, MessagingDefaultCommand.self, MessagingRealtimeURLCommand.self,
            MessagingPerformanceTestCommand.self,
        ]
    )
}

/// The options every `messaging` command takes: which configuration and which app.
struct MessagingOptions: ParsableArguments {
    @Option(help: "The server configuration file (JSON). Defaults to $STOREKEEPER_CONFIG.")
    var config: String?

    @Option(help: "The app id (from the configuration) whose content to manage.")
    var app: String

    @Option(help: "Seconds to wait for each answer from Apple.")
    var timeout: Int = 30

    @Option(help: "How many times a request is sent when Apple is unreachable or asks to retry.")
    var attempts: Int = 3

    /// The app's App Store Server API client.
    func client(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIFailure) -> AppStoreServerAPIClient {
        let file = config ?? environment["STOREKEEPER_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(file: file, environment: environment)
        } catch {
            throw .usage("\(error)")
        }
        guard let app = configuration.apps.first(where: { $0.id == self.app }) else {
            throw .usage("the configuration has no app \(self.app)")
        }
        guard let settings = app.appStoreServerAPI else {
            throw .usage("app \(app.id) has no appStoreServerAPI credentials in the configuration")
        }
        guard (1...300).contains(timeout) else { throw .usage("--timeout must be 1 to 300 seconds") }
        guard (1...10).contains(attempts) else { throw .usage("--attempts must be 1 to 10") }
        do {
            var client = try settings.clientConfiguration(app: app.id, bundleId: app.bundleId)
            client.retryPolicy.maximumAttempts = attempts
            return AppStoreServerAPIClient(
                configuration: client, transport: AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(timeout))),
                rateBudget: RateBudget())
        } catch {
            throw .usage("\(error)")
        }
    }

    /// Runs one Apple call, turning its failure into a one-line message and an exit code.
    func call<T: Sendable>(_ body: (AppStoreServerAPIClient) async throws -> T) async throws(CLIFailure) -> T {
        let client = try client()
        do {
            return try await body(client)
        } catch let error as AppStoreServerAPIError {
            throw MessagingFailure.failure(error)
        } catch {
            throw CLIFailure(exitCode: MessagingFailure.unreachableExitCode, message: "the call failed: \(error)")
        }
    }
}

extension MessagingOptions {
    /// An identifier given on the command line, as a UUID.
    static func uuid(_ text: String, option: String) throws(CLIFailure) -> UUID {
        guard let uuid = UUID(uuidString: text) else { throw .usage("--\(option) must be a UUID, e.g. \(UUID().uuidString.lowercased())") }
        return uuid
    }
}
