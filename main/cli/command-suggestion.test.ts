import { describe, expect, it } from 'vitest';
import { commandSuggestion } from './command-suggestion.js';

// A new admin's first commands are often a word off; "unknown command: batch" alone sent them to the whole --help.

const COMMANDS = [
  'env add',
  'env list',
  'login',
  'logout',
  'import',
  'batch list',
  'batch show',
  'log export',
  'log verify',
  'status',
  'serve',
  'submit',
];

describe('commandSuggestion', () => {
  it.each([
    [['imprt', 'orders.csv'], 'did you mean rx-batch import?'],
    [['stauts'], 'did you mean rx-batch status?'],
    [['batch'], 'rx-batch batch takes one of: list, show'],
    [['batch', 'shw', '3'], 'did you mean rx-batch batch show?'],
    [['btach', 'shwo'], 'did you mean rx-batch batch show?'],
    [['btach'], 'rx-batch batch takes one of: list, show'],
    [['log', 'vrify'], 'did you mean rx-batch log verify?'],
    [['Import'], 'did you mean rx-batch import?'],
  ])('%j: %s', (words, said) => {
    expect(commandSuggestion(words, COMMANDS)).toBe(said);
  });

  it('guesses nothing when nothing is near, or two commands are as near', () => {
    expect(commandSuggestion(['xyz'], COMMANDS)).toBeUndefined();
    expect(commandSuggestion(['i'], COMMANDS)).toBeUndefined();
    expect(commandSuggestion(['logn'], COMMANDS)).toBeUndefined();
    expect(commandSuggestion(['sbumit'], COMMANDS)).toBe('did you mean rx-batch submit?');
  });
});
