// The examples executable: `swift run Examples` tours every scenario; `swift run Examples --help`
// lists them; `swift run Examples <name>...` runs just those.
//
// Top-level code that awaits makes this an async main. On Linux the runtime then drains the main
// dispatch queue while main is suspended, so scenarios whose handlers default to the main queue
// (PromiseKit-style `conf.Q`, FutureKit's `.main`) run here without calling `dispatchMain()`.
import ExampleScenarios
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.contains("--help") || arguments.contains("-h") {
  print("usage: swift run Examples [scenario...]\n\nScenarios:")
  let width = allScenarios.map(\.name.count).max() ?? 0
  for scenario in allScenarios {
    print("  \(scenario.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(scenario.summary)")
  }
  exit(0)
}

let unknown = arguments.filter { name in !allScenarios.contains { $0.name == name } }
if !unknown.isEmpty {
  FileHandle.standardError.write(Data("unknown scenario: \(unknown.joined(separator: ", ")) (see --help)\n".utf8))
  exit(2)
}

let selected = arguments.isEmpty ? allScenarios : allScenarios.filter { arguments.contains($0.name) }
var failures = 0
for scenario in selected {
  print("▸ \(scenario.name): \(scenario.summary)")
  do {
    try await scenario.run(Report(echo: true))
  } catch {
    failures += 1
    print("  ✘ \(error)")
  }
}
print(failures == 0 ? "All \(selected.count) scenarios behaved as described." : "\(failures) scenario(s) failed.")
exit(failures == 0 ? 0 : 1)
