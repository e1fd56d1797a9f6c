//===- Interfaces.h - Loom op interfaces ------------------------*- C++ -*-===//

#ifndef LOOM_INTERFACES_INTERFACES_H
#define LOOM_INTERFACES_INTERFACES_H

#include "loom/Interfaces/Cost.h"
#include "loom/Interfaces/ShardingRule.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "interfaces/CostInterface.h.inc"
#include "interfaces/GradientInterface.h.inc"
#include "interfaces/ShardingRuleInterface.h.inc"

#endif // LOOM_INTERFACES_INTERFACES_H
