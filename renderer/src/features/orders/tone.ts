/** How a state reads at a glance: the colour and symbol every order list and timeline gives it. */
export type Tone = 'good' | 'waiting' | 'attention' | 'neutral';
