import AppStoreModels
import ArgumentParser
import Foundation

/// `storekeeper messaging default set|get|delete`: the message shown by default for a product
/// in a locale.
struct MessagingDefaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default",
        abstract: "Set, get and delete the default retention message of a product and locale.",
        subcommands: [Set.self, Get.self, Delete.self]
    )

    /// The product and locale every `default` command names.
    struct Target: ParsableArguments {
        @Option(help: "The subscription's product id.")
        var product: String

        @Option(help: "The locale, e.g. en-US.")
        var locale: String
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make an approved message the default.")

        @OptionGroup var options: MessagingOptions
        @OptionGroup var target: Target

        @Option(help: "The approved message's identifier.")
        var messageId: String

        func run() async throws {
            let message = try MessagingOptions.uuid(messageId, option: "message-id").uuidString.lowercased()
            let (product, locale) = (target.product, target.locale)
            try await options.call {
                try await $0.configureDefaultMessage(
                    productId: product, locale: locale, request: DefaultConfigurationRequest(messageIdentifier: message))
            }
            try JSONOutput.print(["productId": product, "locale": locale, "messageIdentifier": message])
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the default message of a product and locale.")

        @OptionGroup var options: MessagingOptions
        @OptionGroup var target: Target

        func run() async throws {
            let (product, locale) = (target.product, target.locale)
            let answer = try await options.call { try await $0.getDefaultMessage(productId: product, locale: locale) }
            try JSONOutput.print(["productId": product, "locale": locale, "messageIdentifier": answer.messageIdentifier ?? ""])
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the default message of a product and locale.")

        @OptionGroup var options: MessagingOptions
        @OptionGroup var target: Target

        func run() async throws {
            let (product, locale) = (target.product, target.locale)
            try await options.call { try await $0.deleteDefaultMessage(productId: product, locale: locale) }
            try JSONOutput.print(["productId": product, "locale": locale, "deleted": "true"])
        }
    }
}
