import ArgumentParser
import Foundation
import SubscriptionEngine
import SubscriptionReport

/// `storekeeper status FILE --at ISO8601 [--catalog FILE]`: the subscription engine's answer.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Compute subscriptions, entitlements and offer eligibility from a customer's purchase history.",
        discussion: """
            FILE is a verifyReceipt response JSON, or {"transactions": […], "renewalInfo": […]} \
            holding decoded StoreKit 2 payloads. The catalog file holds {"products": [{"productId", \
            "type": "autoRenewable"|"nonRenewing"|"consumable"|"nonConsumable", \
            "subscriptionGroupIdentifier", "entitlements"}]}. Prints {"subscriptions", \
            "entitlements", "eligibility", …}; groups of the catalog appear even without purchases.
            """
    )

    @Argument(help: "A verifyReceipt response, or {\"transactions\", \"renewalInfo\"} of decoded StoreKit 2 payloads.")
    var file: String

    @Option(help: "The instant to compute the state at (ISO 8601, e.g. 2026-01-31T12:00:00Z).")
    var at: String

    @Option(help: "The product catalog (JSON).")
    var catalog: String?

    @Option(help: "Introductory offer rule: never-subscribed (Apple's current rule) or unused-offer (older StoreKit documentation).")
    var introRule: IntroRule = .neverSubscribed

    @Flag(help: "Print compact JSON instead of indented.")
    var compact = false

    enum IntroRule: String, ExpressibleByArgument {
        case neverSubscribed = "never-subscribed"
        case unusedOffer = "unused-offer"
    }

    func run() async throws {
        guard let instant = ReportDate.parse(at) else {
            throw CLIFailure.usage("--at \(at) is not an ISO 8601 date-time such as 2026-01-31T12:00:00Z")
        }
        let input = try InputFile.read(file)
        let catalogData = try catalog.map { path throws(CLIFailure) in try InputFile.read(path) }
        var configuration = EngineConfiguration()
        configuration.introductoryOfferRule = introRule == .neverSubscribed ? .neverSubscribedInGroup : .unusedIntroductoryOfferAndNotSubscribed
        let report: StatusReport
        do {
            report = try StatusReport(input: input, catalog: catalogData, at: instant, configuration: configuration)
        } catch {
            // A history that is readable but not a valid purchase record is a negative verdict.
            throw CLIFailure(
                exitCode: error.code == .receiptNotValid ? CLIFailure.invalidExitCode : CLIFailure.usageExitCode, message: error.description)
        }
        do {
            Console.out(try report.jsonData(prettyPrinted: !compact))
            Console.out(Data("\n".utf8))
        } catch {
            throw CLIFailure(exitCode: 1, message: "cannot encode the report: \(error)")
        }
    }
}
