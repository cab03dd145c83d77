import AppStoreModels
import ArgumentParser
import Foundation

/// `storekeeper messaging messages upload|list|delete`: the app's retention messages.
struct MessagingMessagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "Upload, list and delete retention messages (header ≤ 66, body ≤ 144 characters).",
        subcommands: [Upload.self, List.self, Delete.self]
    )

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a message; prints its identifier. Apple reviews it before it may be a default.")

        @OptionGroup var options: MessagingOptions

        @Option(help: "The header (at most 66 characters).")
        var header: String

        @Option(help: "The body (at most 144 characters).")
        var body: String

        @Option(help: "An approved image to show (its identifier).")
        var imageId: String?

        @Option(help: "The image's alternative text (at most 150 characters); required with --image-id.")
        var altText: String?

        @Option(help: "ABOVE_BODY or ABOVE_IMAGE.")
        var headerPosition: String?

        @Option(help: "The message's identifier (a UUID); a new one when absent.")
        var id: String?

        func run() async throws {
            let identifier = try id.map { text throws(CLIFailure) in try MessagingOptions.uuid(text, option: "id") } ?? UUID()
            var image: UploadMessageImage?
            switch (imageId, altText) {
            case (nil, nil): image = nil
            case (let imageId?, let altText?):
                let uuid = try MessagingOptions.uuid(imageId, option: "image-id")
                image = UploadMessageImage(imageIdentifier: uuid.uuidString.lowercased(), altText: altText)
            default: throw CLIFailure.usage("give --image-id and --alt-text together")
            }
            let position = try headerPosition.map { text throws(CLIFailure) in
                let position = HeaderPosition(rawValue: text.uppercased())
                guard position.isKnown else { throw .usage("--header-position must be ABOVE_BODY or ABOVE_IMAGE") }
                return position
            }
            let message = UploadMessageRequestBody(header: header, body: body, image: image, headerPosition: position)
            try await options.call { try await $0.uploadMessage(messageIdentifier: identifier, body: message) }
            try JSONOutput.print(["messageIdentifier": identifier.uuidString.lowercased()])
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the messages with their review states.")

        @OptionGroup var options: MessagingOptions

        func run() async throws {
            let list = try await options.call { try await $0.getMessageList() }
            try JSONOutput.print(GetMessageListResponse(messageIdentifiers: list.messageIdentifiers ?? []))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a message.")

        @OptionGroup var options: MessagingOptions

        @Option(help: "The message's identifier.")
        var id: String

        func run() async throws {
            let identifier = try MessagingOptions.uuid(id, option: "id")
            try await options.call { try await $0.deleteMessage(messageIdentifier: identifier) }
            try JSONOutput.print(["deleted": identifier.uuidString.lowercased()])
        }
    }
}
