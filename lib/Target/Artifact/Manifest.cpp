//===- Manifest.cpp - An artifact's manifest.json -------------------------===//

#include "loom/Target/Artifact/Manifest.h"
#include "loom/Target/Artifact/ArtifactFormat.h"

using namespace mlir;
using namespace loom;

ManifestContents loom::readManifestContents(ModuleOp module) {
  ManifestContents contents;
  auto meshes = module.getOps<dist::MeshOp>();
  if (!meshes.empty())
    contents.meshAxes = (*meshes.begin()).getAxes();
  contents.commGroups =
      module->getAttrOfType<ArrayAttr>(dist::kCommGroupsAttrName);
  contents.collectives =
      module->getAttrOfType<ArrayAttr>(dist::kCollectivesAttrName);
  contents.training =
      module->getAttrOfType<nn::TrainingAttr>(nn::kTrainingAttrName);
  return contents;
}

namespace {

/// The manifest's `training` object (docs/Training.md), keys sorted as
/// earlier manifests had them.
void writeTraining(llvm::json::OStream &j, nn::TrainingAttr t) {
  auto number = [&](StringRef key, const APFloat &v) {
    j.attribute(key, v.convertToDouble());
  };
  bool sgd = t.getOptimizer() == nn::Optimizer::SGD;
  j.object([&] {
    if (t.getBatch() > 0)
      j.attribute("batch", t.getBatch());
    if (!t.getClipGradNorm().isZero())
      number("clip_grad_norm", t.getClipGradNorm());
    j.attributeArray("data_inputs", [&] {
      for (Attribute name : t.getDataInputs())
        j.value(cast<StringAttr>(name).getValue());
    });
    number("flops_per_step", t.getFlopsPerStep());
    j.attribute("grad_accum", t.getGradAccum());
    j.attribute("grad_norm", t.getGradNorm());
    if (!t.getLabels().empty())
      j.attribute("labels", t.getLabels());
    j.attribute("loss", t.getLoss());
    j.attributeObject("lr_schedule", [&] {
      j.attribute("decay_steps", t.getDecaySteps());
      j.attribute("kind", nn::stringifyLRSchedule(t.getLrSchedule()));
      number("min_lr", t.getMinLr());
      j.attribute("warmup", t.getWarmup());
    });
    if (!t.getLabels().empty())
      j.attribute("num_classes", t.getNumClasses());
    j.attributeObject("optimizer", [&] {
      if (!sgd) {
        number("beta1", t.getBeta1());
        number("beta2", t.getBeta2());
        number("eps", t.getEps());
      }
      j.attribute("kind", nn::stringifyOptimizer(t.getOptimizer()));
      number("lr", t.getLr());
      if (sgd)
        number("momentum", t.getMomentum());
      number("weight_decay", t.getWeightDecay());
    });
    j.attributeObject("scalars", [&] {
      auto scalars = t.getScalarInputs();
      llvm::sort(scalars);
      for (auto [input, key] : scalars)
        j.attribute(input, key);
    });
    if (t.getTokensPerExample() > 0)
      j.attribute("tokens_per_example", t.getTokensPerExample());
    j.attribute("zero", t.getZero());
  });
}

void writeTensor(llvm::json::OStream &j, const TensorSpec &s, bool isParam) {
  j.object([&] {
    j.attribute("name", s.name);
    j.attribute("dtype", dtypeName(s.type.getElementType()));
    j.attributeArray("shape", [&] {
      for (int64_t d : s.type.getShape())
        j.value(d);
    });
    if (s.sharding) {
      j.attributeArray("global_shape", [&] {
        for (int64_t d : s.globalType.getShape())
          j.value(d);
      });
      j.attributeArray("sharding", [&] {
        for (dist::DimShardingAttr dim : s.sharding.getDims())
          j.array([&] {
            for (StringAttr a : dim.getAxes())
              j.value(a.getValue());
          });
      });
    }
    if (isParam && s.zeroInit) {
      j.attribute("init", "zeros");
    } else if (isParam) {
      j.attribute("offset", static_cast<int64_t>(s.offset));
      j.attribute("nbytes", static_cast<int64_t>(s.nbytes));
    }
    if (isParam && !s.update.empty())
      j.attribute("update", s.update);
  });
}

} // namespace

std::string loom::writeManifest(const EntrySignature &sig,
                                const ManifestContents &contents,
                                const Target &target) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("format", LOOM_ARTIFACT_FORMAT_NAME);
    // 2 added the mesh, 3 training, 5 the checksums and the signature every
    // artifact now carries: a runtime that reads 5 requires them, so that
    // stripping them cannot pass for an older artifact.
    j.attribute("format_version", LOOM_ARTIFACT_FORMAT_CHECKSUMS);
    j.attribute("runtime_abi", contents.runtimeABI);
    j.attribute("producer", "loomc " LOOM_VERSION);
    j.attribute("model", contents.modelName);
    j.attributeObject("target", [&] {
      j.attribute("device", target.getDeviceKind());
      target.describe(j);
    });
    j.attribute("library", contents.library);
    j.attribute("entry", LOOM_ENTRY_SYMBOL);
    if (contents.meshAxes) {
      j.attributeObject("mesh", [&] {
        j.attributeArray("axes", [&] {
          for (Attribute a : contents.meshAxes) {
            auto axis = cast<dist::MeshAxisAttr>(a);
            j.object([&] {
              j.attribute("name", axis.getName());
              j.attribute("size", axis.getSize());
            });
          }
        });
      });
      j.attributeArray("groups", [&] {
        if (contents.commGroups)
          for (Attribute g : contents.commGroups)
            j.array([&] {
              for (Attribute a : cast<ArrayAttr>(g))
                j.value(cast<StringAttr>(a).getValue());
            });
      });
      j.attributeArray("collectives", [&] {
        if (contents.collectives)
          for (Attribute c : contents.collectives) {
            auto call = cast<dist::CollectiveCallAttr>(c);
            j.object([&] {
              j.attribute("kind", call.getKind());
              j.attribute("group", call.getGroup());
              j.attribute("bytes", call.getBytes());
            });
          }
      });
    }
    if (!sig.params.empty())
      j.attribute("parameter_file", LOOM_PARAMETERS_FILE);
    j.attributeArray("parameters", [&] {
      for (const TensorSpec &s : sig.params)
        writeTensor(j, s, true);
    });
    j.attributeArray("inputs", [&] {
      for (const TensorSpec &s : sig.inputs)
        writeTensor(j, s, false);
    });
    j.attributeArray("outputs", [&] {
      for (const TensorSpec &s : sig.outputs)
        writeTensor(j, s, false);
    });
    if (contents.training) {
      j.attributeBegin("training");
      writeTraining(j, contents.training);
      j.attributeEnd();
    }
    j.attributeObject("files", [&] {
      for (const ManifestContents::File &file : contents.files)
        j.attributeObject(file.name, [&] {
          j.attribute("bytes", static_cast<int64_t>(file.bytes));
          j.attribute("crc32", static_cast<int64_t>(file.crc32));
        });
    });
  });
  os << "\n";
  return text;
}

std::string loom::writeSignature(const EntrySignature &sig) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os);
  // The buffers the program reads and writes: per-device types, and bytes
  // as the runtime lays them out (a byte per bool and 4-bit value).
  auto tensors = [&](StringRef key, ArrayRef<TensorSpec> specs) {
    j.attributeArray(key, [&] {
      for (const TensorSpec &s : specs)
        j.object([&] {
          Type et = s.type.getElementType();
          j.attribute("name", s.name);
          j.attribute("dtype", dtypeName(et));
          j.attributeArray("shape", [&] {
            for (int64_t d : s.type.getShape())
              j.value(d);
          });
          uint64_t elementBytes = std::max(1u, et.getIntOrFloatBitWidth() / 8);
          j.attribute("nbytes", static_cast<int64_t>(s.type.getNumElements() *
                                                     elementBytes));
        });
    });
  };
  j.object([&] {
    j.attribute("version", LOOM_SIGNATURE_VERSION);
    tensors("parameters", sig.params);
    tensors("inputs", sig.inputs);
    tensors("outputs", sig.outputs);
  });
  return text;
}
