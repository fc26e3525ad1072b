// Loaded into every node that scripts/clock/node starts: its children (Python, nginx, a shell)
// must not inherit libfaketime, and the node children it spawns through process.execPath must go
// through the wrapper again to keep the moved clock.
'use strict';
const path = require('node:path');
delete process.env.LD_PRELOAD;
process.execPath = path.join(__dirname, 'node');
