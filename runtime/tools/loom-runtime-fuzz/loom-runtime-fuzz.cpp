//===- loom-runtime-fuzz.cpp - libFuzzer target for the runtime's parsers -===//
//
// Everything a user hands loomrun is parsed by the runtime: manifest.json
// (JSON, then the manifest checks) and .npy files. Each input is fed to all
// three; none may crash, and JSON that parses must survive a round trip
// through the writer unchanged.
//
//===----------------------------------------------------------------------===//

#include "core/Manifest.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Npy.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace loom::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);

  json::Value value;
  json::ParseError parseError;
  if (json::parse(text, value, parseError)) {
    std::string once = json::serialize(value);
    json::Value again;
    if (!json::parse(once, again, parseError) || json::serialize(again) != once)
      std::abort(); // the writer produced text its reader rejects or changes
  }

  Manifest manifest;
  std::string error;
  loom_status status = LOOM_OK;
  (void)parseManifest(text, "fuzz.loom/manifest.json", "fuzz.loom", manifest,
                      error, status);

  NpyArray array;
  (void)parseNpy(data, size, "fuzz.npy", array, error);
  return 0;
}
