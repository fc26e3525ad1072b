// `--import` entry for the test files (.taprc node-arg): registers compiled-hooks.js, which loads
// src/ and bench/ from their compiled form in dist/ while that is up to date.
import { register } from 'node:module';

register('./compiled-hooks.js', import.meta.url);
